// OffsetCommit Request (Version: 2) => group_id generation_id member_id retention_time_ms [topics]
//     partitions => partition_index committed_offset committed_metadata
// OffsetCommit Response (Version: 2) => same as version 0
import { offsetCommitCodec } from './codec.js';

export const v2 = offsetCommitCodec(2);
