import type { LeaveGroupRequest, LeaveGroupResponse } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** LeaveGroup: v0-2 name one member (its error is the response's), v3+ a list with an error each. */
export function leaveGroupHandler(s: GroupServices): ApiHandler<LeaveGroupRequest, LeaveGroupResponse> {
  return (req, ctx) => {
    const { errorCode, members } = s.groupCoordinator.handleLeaveGroup(req.groupId, req.members);
    if (ctx.apiVersion >= 3) return { throttleTimeMs: 0, errorCode, members };
    return { throttleTimeMs: 0, errorCode: errorCode !== 0 ? errorCode : (members[0]?.errorCode ?? 0), members: [] };
  };
}
