// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// OffsetCommit Request (Version: 8) => group_id generation_id member_id group_instance_id [topics] TAG_BUFFER
//   topics => name [partitions] TAG_BUFFER
//     partitions => partition_index committed_offset committed_leader_epoch committed_metadata TAG_BUFFER
// OffsetCommit Response (Version: 8) => throttle_time_ms [topics] TAG_BUFFER
//   topics => name [partitions] TAG_BUFFER
//     partitions => partition_index error_code TAG_BUFFER
import { offsetCommitCodec } from './codec.js';

export const v8 = offsetCommitCodec(8);
