// JoinGroup Request (Version: 5) => group_id session_timeout_ms rebalance_timeout_ms member_id group_instance_id protocol_type [protocols]
// JoinGroup Response (Version: 5) => throttle_time_ms error_code generation_id protocol_name leader member_id [members]
//   members => member_id group_instance_id metadata
import { joinGroupCodec } from './codec.js';

export const v5 = joinGroupCodec(5);
