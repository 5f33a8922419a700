// Fetch Request (Version: 11) => replica_id max_wait_ms min_bytes max_bytes isolation_level session_id session_epoch [topics] [forgotten_topics_data] rack_id
//   topics => topic [partitions]
//     partitions => partition current_leader_epoch fetch_offset log_start_offset partition_max_bytes
//   forgotten_topics_data => topic [partitions]
// Fetch Response (Version: 11) => throttle_time_ms error_code session_id [responses]
//   responses => topic [partition_responses]
//     partition_responses => partition error_code high_watermark last_stable_offset log_start_offset [aborted_transactions] preferred_read_replica record_set
//       aborted_transactions => producer_id first_offset
import { fetchCodec } from './codec.js';

export const v11 = fetchCodec(11);
