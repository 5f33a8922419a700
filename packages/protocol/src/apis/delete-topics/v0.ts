// DeleteTopics Request (Version: 0) => [topic_names] timeout_ms
// DeleteTopics Response (Version: 0) => [responses]
//   responses => name error_code
import { deleteTopicsCodec } from './codec.js';

export const v0 = deleteTopicsCodec(0);
