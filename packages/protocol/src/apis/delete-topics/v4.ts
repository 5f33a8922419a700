// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// DeleteTopics Request (Version: 4) => [topic_names] timeout_ms TAG_BUFFER
// DeleteTopics Response (Version: 4) => throttle_time_ms [responses] TAG_BUFFER
//   responses => name error_code TAG_BUFFER
import { deleteTopicsCodec } from './codec.js';

export const v4 = deleteTopicsCodec(4);
