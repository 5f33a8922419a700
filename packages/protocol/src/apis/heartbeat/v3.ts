// Heartbeat Request (Version: 3) => group_id generation_id member_id group_instance_id
// Heartbeat Response (Version: 3) => same as version 1
import { heartbeatCodec } from './codec.js';

export const v3 = heartbeatCodec(3);
