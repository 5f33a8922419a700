// JoinGroup Request (Version: 0) => group_id session_timeout_ms member_id protocol_type [protocols]
//   protocols => name metadata
// JoinGroup Response (Version: 0) => error_code generation_id protocol_name leader member_id [members]
//   members => member_id metadata
import { joinGroupCodec } from './codec.js';

export const v0 = joinGroupCodec(0);
