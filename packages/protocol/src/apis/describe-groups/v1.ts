// DescribeGroups Request (Version: 1) => same as version 0
// DescribeGroups Response (Version: 1) => throttle_time_ms [groups]
import { describeGroupsCodec } from './codec.js';

export const v1 = describeGroupsCodec(1);
