// Heartbeat Request (Version: 0) => group_id generation_id member_id
// Heartbeat Response (Version: 0) => error_code
import { heartbeatCodec } from './codec.js';

export const v0 = heartbeatCodec(0);
