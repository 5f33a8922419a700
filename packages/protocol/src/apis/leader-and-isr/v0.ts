// LeaderAndIsr Request (Version: 0) => controller_id controller_epoch [ungrouped_partition_states] [live_leaders]
//   ungrouped_partition_states => topic_name partition_index controller_epoch leader leader_epoch [isr] zk_version [replicas]
//   live_leaders => broker_id host_name port
// LeaderAndIsr Response (Version: 0) => error_code [partition_errors]
//   partition_errors => topic_name partition_index error_code
import { leaderAndIsrCodec } from './codec.js';

export const v0 = leaderAndIsrCodec(0);
