// OffsetCommit Request (Version: 7) => group_id generation_id member_id group_instance_id [topics]
// OffsetCommit Response (Version: 7) => same as version 3
import { offsetCommitCodec } from './codec.js';

export const v7 = offsetCommitCodec(7);
