// DescribeGroups Request (Version: 3) => [groups] include_authorized_operations
// DescribeGroups Response (Version: 3) => throttle_time_ms [groups] (each group ends with authorized_operations)
import { describeGroupsCodec } from './codec.js';

export const v3 = describeGroupsCodec(3);
