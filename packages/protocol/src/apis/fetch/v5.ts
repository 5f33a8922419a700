// Fetch Request (Version: 5) => replica_id max_wait_ms min_bytes max_bytes isolation_level [topics]
//   topics => topic [partitions]
//     partitions => partition fetch_offset log_start_offset partition_max_bytes
// Fetch Response (Version: 5) => throttle_time_ms [responses]
//   responses => topic [partition_responses]
//     partition_responses => partition error_code high_watermark last_stable_offset log_start_offset [aborted_transactions] record_set
//       aborted_transactions => producer_id first_offset
import { fetchCodec } from './codec.js';

export const v5 = fetchCodec(5);
