import type { SyncGroupRequest, SyncGroupResponse } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** SyncGroup: followers wait for the leader's assignment; the leader's is written to __consumer_offsets first. */
export function syncGroupHandler(s: GroupServices): ApiHandler<SyncGroupRequest, SyncGroupResponse> {
  return (req) => s.groupCoordinator.handleSyncGroup(req);
}
