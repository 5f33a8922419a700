// Metadata Request (Version: 7) => [topics] allow_auto_topic_creation
//   topics => name
// Metadata Response (Version: 7) => throttle_time_ms [brokers] cluster_id controller_id [topics]
//   brokers => node_id host port rack
//   topics => error_code name is_internal [partitions]
//     partitions => error_code partition_index leader_id leader_epoch [replica_nodes] [isr_nodes] [offline_replicas]
import { metadataCodec } from './codec.js';

export const v7 = metadataCodec(7);
