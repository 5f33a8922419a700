// DescribeGroups Request and Response (Version: 2) => same as version 1
import { describeGroupsCodec } from './codec.js';

export const v2 = describeGroupsCodec(2);
