import type { DeleteGroupsRequest, DeleteGroupsResponse } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** DeleteGroups: only empty groups go (NON_EMPTY_GROUP otherwise); their records get tombstones. */
export function deleteGroupsHandler(s: GroupServices): ApiHandler<DeleteGroupsRequest, DeleteGroupsResponse> {
  return async (req) => ({ throttleTimeMs: 0, results: await s.groupCoordinator.handleDeleteGroups(req.groupsNames) });
}
