// UpdateMetadata Request (Version: 2) => controller_id controller_epoch [ungrouped_partition_states] [live_brokers]
//   ungrouped_partition_states => topic_name partition_index controller_epoch leader leader_epoch [isr] zk_version [replicas]
//   live_brokers => id [endpoints] rack
//     endpoints => port host security_protocol
// UpdateMetadata Response (Version: 2) => error_code
import { updateMetadataCodec } from './codec.js';

export const v2 = updateMetadataCodec(2);
