// DeleteTopics Request (Version: 1) => [topic_names] timeout_ms
// DeleteTopics Response (Version: 1) => throttle_time_ms [responses]
//   responses => name error_code
import { deleteTopicsCodec } from './codec.js';

export const v1 = deleteTopicsCodec(1);
