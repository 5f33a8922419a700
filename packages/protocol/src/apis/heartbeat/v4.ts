// First flexible version (request header v2, response header v1; compact strings; tagged fields).
// Heartbeat Request (Version: 4) => group_id generation_id member_id group_instance_id TAG_BUFFER
// Heartbeat Response (Version: 4) => throttle_time_ms error_code TAG_BUFFER
import { heartbeatCodec } from './codec.js';

export const v4 = heartbeatCodec(4);
