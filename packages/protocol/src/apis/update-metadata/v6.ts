// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// UpdateMetadata Request (Version: 6) => controller_id controller_epoch broker_epoch [topic_states] [live_brokers] TAG_BUFFER
//   topic_states => topic_name [partition_states] TAG_BUFFER
//     partition_states => partition_index controller_epoch leader leader_epoch [isr] zk_version [replicas] [offline_replicas] TAG_BUFFER
//   live_brokers => id [endpoints] rack TAG_BUFFER
//     endpoints => port host listener security_protocol TAG_BUFFER
// UpdateMetadata Response (Version: 6) => error_code TAG_BUFFER
import { updateMetadataCodec } from './codec.js';

export const v6 = updateMetadataCodec(6);
