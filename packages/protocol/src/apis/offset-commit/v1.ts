// OffsetCommit Request (Version: 1) => group_id generation_id member_id [topics]
//     partitions => partition_index committed_offset commit_timestamp committed_metadata
// OffsetCommit Response (Version: 1) => same as version 0
import { offsetCommitCodec } from './codec.js';

export const v1 = offsetCommitCodec(1);
