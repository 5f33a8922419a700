// OffsetCommit Request (Version: 0) => group_id [topics]
//   topics => name [partitions]
//     partitions => partition_index committed_offset committed_metadata
// OffsetCommit Response (Version: 0) => [topics]
//   topics => name [partitions]
//     partitions => partition_index error_code
import { offsetCommitCodec } from './codec.js';

export const v0 = offsetCommitCodec(0);
