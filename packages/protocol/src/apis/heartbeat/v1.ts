// Heartbeat Request (Version: 1) => same as version 0
// Heartbeat Response (Version: 1) => throttle_time_ms error_code
import { heartbeatCodec } from './codec.js';

export const v1 = heartbeatCodec(1);
