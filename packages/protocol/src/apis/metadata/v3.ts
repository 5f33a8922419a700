// Metadata Request (Version: 3) => [topics]
//   topics => name
// Metadata Response (Version: 3) => throttle_time_ms [brokers] cluster_id controller_id [topics]
//   brokers => node_id host port rack
//   topics => error_code name is_internal [partitions]
//     partitions => error_code partition_index leader_id [replica_nodes] [isr_nodes]
import { metadataCodec } from './codec.js';

export const v3 = metadataCodec(3);
