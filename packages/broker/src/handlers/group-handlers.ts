import { DeleteGroups, DescribeGroups, FindCoordinator, Heartbeat, JoinGroup, LeaveGroup, ListGroups, OffsetCommit, OffsetDelete, OffsetFetch, SyncGroup } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { KafkaApis } from '../kafka-apis.js';
import { deleteGroupsHandler } from './delete-groups.js';
import { describeGroupsHandler } from './describe-groups.js';
import { findCoordinatorHandler } from './find-coordinator.js';
import { heartbeatHandler } from './heartbeat.js';
import { joinGroupHandler } from './join-group.js';
import { leaveGroupHandler } from './leave-group.js';
import { listGroupsHandler } from './list-groups.js';
import { offsetCommitHandler } from './offset-commit.js';
import { offsetDeleteHandler } from './offset-delete.js';
import { offsetFetchHandler } from './offset-fetch.js';
import { syncGroupHandler } from './sync-group.js';

/** The group coordinator's APIs (Kafka's consumer group protocol). */
export function registerGroupHandlers(apis: KafkaApis, s: GroupServices): void {
  apis.register(OffsetCommit, offsetCommitHandler(s));
  apis.register(OffsetFetch, offsetFetchHandler(s));
  apis.register(FindCoordinator, findCoordinatorHandler(s));
  apis.register(JoinGroup, joinGroupHandler(s));
  apis.register(Heartbeat, heartbeatHandler(s));
  apis.register(LeaveGroup, leaveGroupHandler(s));
  apis.register(SyncGroup, syncGroupHandler(s));
  apis.register(DescribeGroups, describeGroupsHandler(s));
  apis.register(ListGroups, listGroupsHandler(s));
  apis.register(DeleteGroups, deleteGroupsHandler(s));
  apis.register(OffsetDelete, offsetDeleteHandler(s));
}
