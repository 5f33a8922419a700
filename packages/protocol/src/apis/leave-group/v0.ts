// LeaveGroup Request (Version: 0) => group_id member_id
// LeaveGroup Response (Version: 0) => error_code
import { leaveGroupCodec } from './codec.js';

export const v0 = leaveGroupCodec(0);
