// OffsetCommit Request (Version: 6) => group_id generation_id member_id [topics]
//     partitions => partition_index committed_offset committed_leader_epoch committed_metadata
// OffsetCommit Response (Version: 6) => same as version 3
import { offsetCommitCodec } from './codec.js';

export const v6 = offsetCommitCodec(6);
