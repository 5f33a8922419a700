import type { HeartbeatRequest, HeartbeatResponse } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** Heartbeat: keeps the member's session; REBALANCE_IN_PROGRESS tells it to rejoin. */
export function heartbeatHandler(s: GroupServices): ApiHandler<HeartbeatRequest, HeartbeatResponse> {
  return (req) => ({ throttleTimeMs: 0, errorCode: s.groupCoordinator.handleHeartbeat(req.groupId, req.memberId, req.generationId, req.groupInstanceId) });
}
