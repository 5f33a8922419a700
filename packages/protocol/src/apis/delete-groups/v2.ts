// First flexible version (request header v2, response header v1; compact strings and arrays; tagged fields).
// DeleteGroups Request (Version: 2) => [groups_names] TAG_BUFFER
// DeleteGroups Response (Version: 2) => throttle_time_ms [results] TAG_BUFFER
//   results => group_id error_code TAG_BUFFER
import { deleteGroupsCodec } from './codec.js';

export const v2 = deleteGroupsCodec(2);
