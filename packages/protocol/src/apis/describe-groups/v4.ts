// DescribeGroups Request (Version: 4) => same as version 3
// DescribeGroups Response (Version: 4) => members gain group_instance_id after member_id
import { describeGroupsCodec } from './codec.js';

export const v4 = describeGroupsCodec(4);
