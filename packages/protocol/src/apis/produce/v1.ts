// Produce Request (Version: 1) => same as version 0 (MessageSet, magic 0)
// Produce Response (Version: 1) => [responses] throttle_time_ms
//   responses => name [partition_responses]
//     partition_responses => index error_code base_offset
import { produceCodec } from './codec.js';

export const v1 = produceCodec(1);
