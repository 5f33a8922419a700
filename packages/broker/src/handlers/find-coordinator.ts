import { ErrorCode, errorName } from '@gregor/common';
import { OFFSETS_TOPIC } from '@gregor/coordinator';
import type { FindCoordinatorRequest, FindCoordinatorResponse } from '@gregor/protocol';
import type { GroupServices } from './group-services.js';
import type { ApiHandler } from '../kafka-apis.js';
import { createOffsetsTopic } from './offsets-topic.js';

const GROUP_KEY_TYPE = 0;

/**
 * FindCoordinator: the leader of the group's `__consumer_offsets` partition (abs(hashCode) % partitions),
 * on the listener the client connected to. The topic is created on first use; until its partition has a
 * live leader the answer is COORDINATOR_NOT_AVAILABLE and clients retry.
 */
export function findCoordinatorHandler(s: GroupServices): ApiHandler<FindCoordinatorRequest, FindCoordinatorResponse> {
  return async (req, ctx) => {
    const fail = (errorCode: number, message?: string): FindCoordinatorResponse => ({
      throttleTimeMs: 0,
      errorCode,
      errorMessage: message ?? errorName(errorCode),
      nodeId: -1,
      host: '',
      port: -1,
    });
    if ((req.keyType ?? GROUP_KEY_TYPE) !== GROUP_KEY_TYPE) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE, 'gregor has no transaction coordinator');
    if (!s.groupCoordinator.isActive) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    const cache = s.metadataCache;
    if (!cache.contains(OFFSETS_TOPIC)) {
      await createOffsetsTopic(s);
      return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
    const partition = s.groupCoordinator.partitionFor(req.key);
    const state = cache.partitions(OFFSETS_TOPIC).find((p) => p.partition === partition);
    const leader = state && state.leader >= 0 ? cache.aliveBroker(state.leader) : undefined;
    const endpoint = leader?.endpoints.find((e) => e.listenerName === ctx.conn.listenerName);
    if (!leader || !endpoint) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    // Kafka 2.4 sets Errors.NONE.message(), which is "NONE", on success too.
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: errorName(ErrorCode.NONE), nodeId: leader.id, host: endpoint.host, port: endpoint.port };
  };
}
