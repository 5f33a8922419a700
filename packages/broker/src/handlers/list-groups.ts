import type { ListGroupsRequest, ListGroupsResponse } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** ListGroups: the groups this broker coordinates (clients ask every broker). */
export function listGroupsHandler(s: GroupServices): ApiHandler<ListGroupsRequest, ListGroupsResponse> {
  return () => ({ throttleTimeMs: 0, ...s.groupCoordinator.handleListGroups() });
}
