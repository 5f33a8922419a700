// ListPartitionReassignments Request (Version: 0) => timeout_ms [topics] TAG_BUFFER     (flexible from v0; null topics = all)
//   topics => name [partition_indexes] TAG_BUFFER
// ListPartitionReassignments Response (Version: 0) => throttle_time_ms error_code error_message [topics] TAG_BUFFER
//   topics => name [partitions] TAG_BUFFER
//     partitions => partition_index [replicas] [adding_replicas] [removing_replicas] TAG_BUFFER
import { listPartitionReassignmentsCodec } from './codec.js';

export const v0 = listPartitionReassignmentsCodec(0);
