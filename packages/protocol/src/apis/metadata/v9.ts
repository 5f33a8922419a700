// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// Metadata Request (Version: 9) => [topics] allow_auto_topic_creation include_cluster_authorized_operations include_topic_authorized_operations TAG_BUFFER
//   topics => name TAG_BUFFER
// Metadata Response (Version: 9) => throttle_time_ms [brokers] cluster_id controller_id [topics] cluster_authorized_operations TAG_BUFFER
//   brokers => node_id host port rack TAG_BUFFER
//   topics => error_code name is_internal [partitions] topic_authorized_operations TAG_BUFFER
//     partitions => error_code partition_index leader_id leader_epoch [replica_nodes] [isr_nodes] [offline_replicas] TAG_BUFFER
import { metadataCodec } from './codec.js';

export const v9 = metadataCodec(9);
