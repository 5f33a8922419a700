// OffsetCommit Request (Version: 5) => group_id generation_id member_id [topics] (no retention_time_ms)
// OffsetCommit Response (Version: 5) => same as version 3
import { offsetCommitCodec } from './codec.js';

export const v5 = offsetCommitCodec(5);
