// JoinGroup Request (Version: 2) => same as version 1
// JoinGroup Response (Version: 2) => throttle_time_ms error_code generation_id protocol_name leader member_id [members]
import { joinGroupCodec } from './codec.js';

export const v2 = joinGroupCodec(2);
