import type { OffsetCommitRequest, OffsetCommitResponse } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** OffsetCommit: validated against the group's generation, then written to __consumer_offsets with acks=-1. */
export function offsetCommitHandler(s: GroupServices): ApiHandler<OffsetCommitRequest, OffsetCommitResponse> {
  return async (req) => ({ throttleTimeMs: 0, topics: await s.groupCoordinator.handleCommitOffsets(req) });
}
