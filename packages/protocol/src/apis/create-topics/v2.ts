// CreateTopics Request (Version: 2) => same as version 1
// CreateTopics Response (Version: 2) => throttle_time_ms [topics]
//   topics => name error_code error_message
import { createTopicsCodec } from './codec.js';

export const v2 = createTopicsCodec(2);
