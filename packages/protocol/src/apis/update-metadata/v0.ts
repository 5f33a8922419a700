// UpdateMetadata Request (Version: 0) => controller_id controller_epoch [ungrouped_partition_states] [live_brokers]
//   ungrouped_partition_states => topic_name partition_index controller_epoch leader leader_epoch [isr] zk_version [replicas]
//   live_brokers => id v0_host v0_port
// UpdateMetadata Response (Version: 0) => error_code
import { updateMetadataCodec } from './codec.js';

export const v0 = updateMetadataCodec(0);
