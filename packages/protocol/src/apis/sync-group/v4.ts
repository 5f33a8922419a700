// First flexible version (request header v2, response header v1; compact strings, bytes and arrays; tagged fields).
// SyncGroup Request (Version: 4) => group_id generation_id member_id group_instance_id [assignments] TAG_BUFFER
//   assignments => member_id assignment TAG_BUFFER
// SyncGroup Response (Version: 4) => throttle_time_ms error_code assignment TAG_BUFFER
import { syncGroupCodec } from './codec.js';

export const v4 = syncGroupCodec(4);
