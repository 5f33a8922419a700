import { ErrorCode } from '@gregor/common';
import { flattenPartitionStates, type LeaderAndIsrRequest, type LeaderAndIsrResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';
import { toPartitionState } from './partition-state.js';

/** LeaderAndIsr (from the controller): become leader or follower of the listed partitions. */
export function leaderAndIsrHandler(s: BrokerServices): ApiHandler<LeaderAndIsrRequest, LeaderAndIsrResponse> {
  return (req) => s.replicaManager.stateChange(async () => {
    const states = flattenPartitionStates(req.ungroupedPartitionStates, req.topicStates);
    // Topic overrides (min.insync.replicas, retention, ...) are read before the logs are created.
    await s.topicConfigs.load(states.map((p) => p.topicName));
    const requests = states.map((p) => ({ ...toPartitionState(p), isNew: p.isNew ?? false }));
    // New logs are created first, letting the event loop turn (thousands must not stall the ZooKeeper session).
    if (req.controllerEpoch >= s.replicaManager.controllerEpoch) await s.replicaManager.createLogsFor(requests);
    const result = s.replicaManager.becomeLeaderOrFollower(
      req.controllerId,
      req.controllerEpoch,
      requests,
      req.liveLeaders.map((l) => ({ brokerId: l.brokerId, host: l.hostName, port: l.port })),
    );
    // The broker's own view follows the leadership it was just given (not what it refused as stale).
    const accepted = new Set(result.partitionErrors.filter((e) => e.errorCode === ErrorCode.NONE).map((e) => `${e.topic}-${e.partition}`));
    for (const p of states) {
      if (!accepted.has(`${p.topicName}-${p.partitionIndex}`)) continue;
      const existing = s.metadataCache.partition(p.topicName, p.partitionIndex);
      s.metadataCache.updatePartitionLeadership(toPartitionState(p, existing?.offlineReplicas ?? []));
    }
    return {
      errorCode: result.errorCode,
      partitionErrors: result.partitionErrors.map((e) => ({ topicName: e.topic, partitionIndex: e.partition, errorCode: e.errorCode })),
    };
  });
}
