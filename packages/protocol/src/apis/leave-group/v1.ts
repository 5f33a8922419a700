// LeaveGroup Request (Version: 1) => same as version 0
// LeaveGroup Response (Version: 1) => throttle_time_ms error_code
import { leaveGroupCodec } from './codec.js';

export const v1 = leaveGroupCodec(1);
