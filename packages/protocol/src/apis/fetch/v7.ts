// Fetch Request (Version: 7) => replica_id max_wait_ms min_bytes max_bytes isolation_level session_id session_epoch [topics] [forgotten_topics_data]
//   topics => topic [partitions]
//     partitions => partition fetch_offset log_start_offset partition_max_bytes
//   forgotten_topics_data => topic [partitions]
// Fetch Response (Version: 7) => throttle_time_ms error_code session_id [responses]
//   responses => topic [partition_responses]
//     partition_responses => partition error_code high_watermark last_stable_offset log_start_offset [aborted_transactions] record_set
//       aborted_transactions => producer_id first_offset
import { fetchCodec } from './codec.js';

export const v7 = fetchCodec(7);
