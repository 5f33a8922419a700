// LeaderAndIsr Request (Version: 3) => controller_id controller_epoch broker_epoch [topic_states] [live_leaders]
//   topic_states => topic_name [partition_states]
//     partition_states => partition_index controller_epoch leader leader_epoch [isr] zk_version [replicas] [adding_replicas] [removing_replicas] is_new
//   live_leaders => broker_id host_name port
// LeaderAndIsr Response (Version: 3) => same as version 0
import { leaderAndIsrCodec } from './codec.js';

export const v3 = leaderAndIsrCodec(3);
