// LeaderAndIsr Request (Version: 1) => controller_id controller_epoch [ungrouped_partition_states] [live_leaders]
//   ungrouped_partition_states => topic_name partition_index controller_epoch leader leader_epoch [isr] zk_version [replicas] is_new
//   live_leaders => broker_id host_name port
// LeaderAndIsr Response (Version: 1) => same as version 0 (may return KAFKA_STORAGE_ERROR)
import { leaderAndIsrCodec } from './codec.js';

export const v1 = leaderAndIsrCodec(1);
