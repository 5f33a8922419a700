// SyncGroup Request (Version: 1) => same as version 0
// SyncGroup Response (Version: 1) => throttle_time_ms error_code assignment
import { syncGroupCodec } from './codec.js';

export const v1 = syncGroupCodec(1);
