// Fetch Request (Version: 9) => replica_id max_wait_ms min_bytes max_bytes isolation_level session_id session_epoch [topics] [forgotten_topics_data]
//   topics => topic [partitions]
//     partitions => partition current_leader_epoch fetch_offset log_start_offset partition_max_bytes
//   forgotten_topics_data => topic [partitions]
// Fetch Response (Version: 9) => same as version 7
import { fetchCodec } from './codec.js';

export const v9 = fetchCodec(9);
