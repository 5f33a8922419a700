import type { JoinGroupRequest, JoinGroupResponse } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** Kafka's client host format: "/" + the peer's address. */
export function clientHost(remoteAddress: string): string {
  const i = remoteAddress.lastIndexOf(':');
  return `/${i > 0 ? remoteAddress.slice(0, i) : remoteAddress}`;
}

/** JoinGroup: parked in the coordinator until the rebalance completes (v4+ get MEMBER_ID_REQUIRED first). */
export function joinGroupHandler(s: GroupServices): ApiHandler<JoinGroupRequest, JoinGroupResponse> {
  return (req, ctx) =>
    s.groupCoordinator.handleJoinGroup(req, {
      clientId: ctx.header.clientId ?? '',
      clientHost: clientHost(ctx.conn.remoteAddress),
      requireKnownMemberId: ctx.apiVersion >= 4,
    });
}
