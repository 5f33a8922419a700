// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// ListGroups Request (Version: 3) => TAG_BUFFER
// ListGroups Response (Version: 3) => throttle_time_ms error_code [groups] TAG_BUFFER
//   groups => group_id protocol_type TAG_BUFFER
import { listGroupsCodec } from './codec.js';

export const v3 = listGroupsCodec(3);
