// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// LeaderAndIsr Request (Version: 4) => controller_id controller_epoch broker_epoch [topic_states] [live_leaders] TAG_BUFFER
//   topic_states => topic_name [partition_states] TAG_BUFFER
//     partition_states => partition_index controller_epoch leader leader_epoch [isr] zk_version [replicas] [adding_replicas] [removing_replicas] is_new TAG_BUFFER
//   live_leaders => broker_id host_name port TAG_BUFFER
// LeaderAndIsr Response (Version: 4) => error_code [partition_errors] TAG_BUFFER
//   partition_errors => topic_name partition_index error_code TAG_BUFFER
import { leaderAndIsrCodec } from './codec.js';

export const v4 = leaderAndIsrCodec(4);
