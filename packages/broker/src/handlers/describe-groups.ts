import type { DescribeGroupsRequest, DescribeGroupsResponse } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** DescribeGroups: state, protocol and members of groups this broker coordinates (unknown ones are Dead). */
export function describeGroupsHandler(s: GroupServices): ApiHandler<DescribeGroupsRequest, DescribeGroupsResponse> {
  return (req, ctx) => ({
    throttleTimeMs: 0,
    groups: req.groups.map((groupId) => {
      const group = s.groupCoordinator.handleDescribeGroup(groupId);
      // v3+ asks for the operations the principal may do on each group.
      return req.includeAuthorizedOperations ? { ...group, authorizedOperations: s.auth.authorizedOperations(ctx, 'Group', groupId) } : group;
    }),
  });
}
