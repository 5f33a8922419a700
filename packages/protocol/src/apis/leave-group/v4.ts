// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// LeaveGroup Request (Version: 4) => group_id [members] TAG_BUFFER
//   members => member_id group_instance_id TAG_BUFFER
// LeaveGroup Response (Version: 4) => throttle_time_ms error_code [members] TAG_BUFFER
//   members => member_id group_instance_id error_code TAG_BUFFER
import { leaveGroupCodec } from './codec.js';

export const v4 = leaveGroupCodec(4);
