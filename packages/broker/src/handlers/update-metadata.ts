import { ErrorCode } from '@gregor/common';
import { flattenPartitionStates, type UpdateMetadataRequest, type UpdateMetadataResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';
import { toPartitionState } from './partition-state.js';

/** UpdateMetadata (from the controller): the live brokers and partition states this broker answers Metadata with. */
export function updateMetadataHandler(s: BrokerServices): ApiHandler<UpdateMetadataRequest, UpdateMetadataResponse> {
  // In order with the LeaderAndIsr and StopReplica before it (one may still be creating logs).
  return (req) => s.replicaManager.stateChange(() => {
    if (req.controllerEpoch < s.replicaManager.controllerEpoch) return { errorCode: ErrorCode.STALE_CONTROLLER_EPOCH };
    s.replicaManager.controllerEpoch = req.controllerEpoch;
    const states = flattenPartitionStates(req.ungroupedPartitionStates, req.topicStates);
    const deleted = s.metadataCache.update(
      req.controllerId,
      req.liveBrokers.map((b) => ({
        id: b.id,
        rack: b.rack ?? null,
        // v0 carries one plaintext host/port per broker instead of endpoints.
        endpoints: b.endpoints
          ? b.endpoints.map((e) => ({ listenerName: e.listener ?? 'PLAINTEXT', host: e.host, port: e.port }))
          : [{ listenerName: 'PLAINTEXT', host: b.v0Host ?? '', port: b.v0Port ?? -1 }],
      })),
      states.map((p) => toPartitionState(p)),
    );
    for (const key of deleted) {
      const topic = key.slice(0, key.lastIndexOf('-'));
      if (!s.metadataCache.contains(topic)) s.topicConfigs.forget(topic);
    }
    return { errorCode: ErrorCode.NONE };
  });
}
