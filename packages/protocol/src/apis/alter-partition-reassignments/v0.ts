// AlterPartitionReassignments Request (Version: 0) => timeout_ms [topics] TAG_BUFFER     (flexible from v0)
//   topics => name [partitions] TAG_BUFFER
//     partitions => partition_index [replicas] TAG_BUFFER     (null replicas = cancel)
// AlterPartitionReassignments Response (Version: 0) => throttle_time_ms error_code error_message [responses] TAG_BUFFER
//   responses => name [partitions] TAG_BUFFER
//     partitions => partition_index error_code error_message TAG_BUFFER
import { alterPartitionReassignmentsCodec } from './codec.js';

export const v0 = alterPartitionReassignmentsCodec(0);
