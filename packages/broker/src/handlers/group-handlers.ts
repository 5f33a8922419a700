import { ApiKey } from '@gregor/protocol';
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
  apis.register(ApiKey.OffsetCommit, offsetCommitHandler(s));
  apis.register(ApiKey.OffsetFetch, offsetFetchHandler(s));
  apis.register(ApiKey.FindCoordinator, findCoordinatorHandler(s));
  apis.register(ApiKey.JoinGroup, joinGroupHandler(s));
  apis.register(ApiKey.Heartbeat, heartbeatHandler(s));
  apis.register(ApiKey.LeaveGroup, leaveGroupHandler(s));
  apis.register(ApiKey.SyncGroup, syncGroupHandler(s));
  apis.register(ApiKey.DescribeGroups, describeGroupsHandler(s));
  apis.register(ApiKey.ListGroups, listGroupsHandler(s));
  apis.register(ApiKey.DeleteGroups, deleteGroupsHandler(s));
  apis.register(ApiKey.OffsetDelete, offsetDeleteHandler(s));
}
