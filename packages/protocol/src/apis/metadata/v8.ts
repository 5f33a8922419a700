// Metadata Request (Version: 8) => [topics] allow_auto_topic_creation include_cluster_authorized_operations include_topic_authorized_operations
//   topics => name
// Metadata Response (Version: 8) => throttle_time_ms [brokers] cluster_id controller_id [topics] cluster_authorized_operations
//   brokers => node_id host port rack
//   topics => error_code name is_internal [partitions] topic_authorized_operations
//     partitions => error_code partition_index leader_id leader_epoch [replica_nodes] [isr_nodes] [offline_replicas]
import { metadataCodec } from './codec.js';

export const v8 = metadataCodec(8);
