// Fetch Request (Version: 3) => replica_id max_wait_ms min_bytes max_bytes [topics]
//   topics => topic [partitions]
//     partitions => partition fetch_offset partition_max_bytes
// Fetch Response (Version: 3) => same as version 1 (MessageSet, magic 1)
import { fetchCodec } from './codec.js';

export const v3 = fetchCodec(3);
