// UpdateMetadata Request (Version: 5) => controller_id controller_epoch broker_epoch [topic_states] [live_brokers]
//   topic_states => topic_name [partition_states]
//     partition_states => partition_index controller_epoch leader leader_epoch [isr] zk_version [replicas] [offline_replicas]
//   live_brokers => id [endpoints] rack
//     endpoints => port host listener security_protocol
// UpdateMetadata Response (Version: 5) => error_code
import { updateMetadataCodec } from './codec.js';

export const v5 = updateMetadataCodec(5);
