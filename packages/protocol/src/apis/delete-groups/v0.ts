// DeleteGroups Request (Version: 0) => [groups_names]
// DeleteGroups Response (Version: 0) => throttle_time_ms [results]
//   results => group_id error_code
import { deleteGroupsCodec } from './codec.js';

export const v0 = deleteGroupsCodec(0);
