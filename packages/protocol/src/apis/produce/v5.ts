// Produce Request (Version: 5) => same as version 3
// Produce Response (Version: 5) => [responses] throttle_time_ms
//   responses => name [partition_responses]
//     partition_responses => index error_code base_offset log_append_time_ms log_start_offset
import { produceCodec } from './codec.js';

export const v5 = produceCodec(5);
