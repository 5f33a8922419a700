// ListGroups Request (Version: 0) => (empty)
// ListGroups Response (Version: 0) => error_code [groups]
//   groups => group_id protocol_type
import { listGroupsCodec } from './codec.js';

export const v0 = listGroupsCodec(0);
