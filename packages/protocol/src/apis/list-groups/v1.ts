// ListGroups Request (Version: 1) => (empty)
// ListGroups Response (Version: 1) => throttle_time_ms error_code [groups]
import { listGroupsCodec } from './codec.js';

export const v1 = listGroupsCodec(1);
