// LeaveGroup Request (Version: 3) => group_id [members]
//   members => member_id group_instance_id
// LeaveGroup Response (Version: 3) => throttle_time_ms error_code [members]
//   members => member_id group_instance_id error_code
import { leaveGroupCodec } from './codec.js';

export const v3 = leaveGroupCodec(3);
