// LeaderAndIsr Request (Version: 2) => controller_id controller_epoch broker_epoch [topic_states] [live_leaders]
//   topic_states => topic_name [partition_states]
//     partition_states => partition_index controller_epoch leader leader_epoch [isr] zk_version [replicas] is_new
//   live_leaders => broker_id host_name port
// LeaderAndIsr Response (Version: 2) => same as version 0
import { leaderAndIsrCodec } from './codec.js';

export const v2 = leaderAndIsrCodec(2);
