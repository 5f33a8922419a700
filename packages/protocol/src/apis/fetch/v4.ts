// Fetch Request (Version: 4) => replica_id max_wait_ms min_bytes max_bytes isolation_level [topics]
//   topics => topic [partitions]
//     partitions => partition fetch_offset partition_max_bytes
// Fetch Response (Version: 4) => throttle_time_ms [responses]
//   responses => topic [partition_responses]
//     partition_responses => partition error_code high_watermark last_stable_offset [aborted_transactions] record_set
//       aborted_transactions => producer_id first_offset     (nullable array)
//       record_set => nullable bytes (RecordBatch v2)
import { fetchCodec } from './codec.js';

export const v4 = fetchCodec(4);
