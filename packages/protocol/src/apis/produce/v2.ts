// Produce Request (Version: 2) => same as version 0 (MessageSet, magic 1: timestamps)
// Produce Response (Version: 2) => [responses] throttle_time_ms
//   responses => name [partition_responses]
//     partition_responses => index error_code base_offset log_append_time_ms
import { produceCodec } from './codec.js';

export const v2 = produceCodec(2);
