import type { DescribeGroupsRequest, DescribeGroupsResponse } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** DescribeGroups: state, protocol and members of groups this broker coordinates (unknown ones are Dead). */
export function describeGroupsHandler(s: GroupServices): ApiHandler<DescribeGroupsRequest, DescribeGroupsResponse> {
  return (req) => ({ throttleTimeMs: 0, groups: req.groups.map((g) => s.groupCoordinator.handleDescribeGroup(g)) });
}
