import type { OffsetFetchRequest, OffsetFetchResponse } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** OffsetFetch: committed offsets from the coordinator's cache (-1 when none); null topics (v2+) = all. */
export function offsetFetchHandler(s: GroupServices): ApiHandler<OffsetFetchRequest, OffsetFetchResponse> {
  return (req) => {
    const { errorCode, topics } = s.groupCoordinator.handleFetchOffsets(req.groupId, req.topics);
    return { throttleTimeMs: 0, topics, errorCode };
  };
}
