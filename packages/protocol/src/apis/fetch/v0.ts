// Fetch Request (Version: 0) => replica_id max_wait_ms min_bytes [topics]
//   topics => topic [partitions]
//     partitions => partition fetch_offset partition_max_bytes
// Fetch Response (Version: 0) => [responses]
//   responses => topic [partition_responses]
//     partition_responses => partition error_code high_watermark record_set
//       record_set => nullable bytes (MessageSet, magic 0)
import { fetchCodec } from './codec.js';

export const v0 = fetchCodec(0);
