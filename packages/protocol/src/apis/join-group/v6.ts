// First flexible version (request header v2, response header v1; compact strings, bytes and arrays; tagged fields).
// JoinGroup Request (Version: 6) => group_id session_timeout_ms rebalance_timeout_ms member_id group_instance_id protocol_type [protocols] TAG_BUFFER
//   protocols => name metadata TAG_BUFFER
// JoinGroup Response (Version: 6) => throttle_time_ms error_code generation_id protocol_name leader member_id [members] TAG_BUFFER
//   members => member_id group_instance_id metadata TAG_BUFFER
import { joinGroupCodec } from './codec.js';

export const v6 = joinGroupCodec(6);
