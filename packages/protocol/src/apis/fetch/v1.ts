// Fetch Request (Version: 1) => same as version 0
// Fetch Response (Version: 1) => throttle_time_ms [responses]
//   responses => topic [partition_responses]
//     partition_responses => partition error_code high_watermark record_set
//       record_set => nullable bytes (MessageSet, magic 0)
import { fetchCodec } from './codec.js';

export const v1 = fetchCodec(1);
