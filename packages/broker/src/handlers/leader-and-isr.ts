import { ErrorCode } from '@gregor/common';
import { flattenPartitionStates, type LeaderAndIsrRequest, type LeaderAndIsrResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';
import { toPartitionState } from './partition-state.js';

/** Partitions of one LeaderAndIsr applied between two turns of the event loop. */
const LEADERSHIP_CHUNK = 250;

/** LeaderAndIsr (from the controller): become leader or follower of the listed partitions. */
export function leaderAndIsrHandler(s: BrokerServices): ApiHandler<LeaderAndIsrRequest, LeaderAndIsrResponse> {
  return (req) => s.replicaManager.stateChange(async () => {
    const states = flattenPartitionStates(req.ungroupedPartitionStates, req.topicStates);
    // Topic overrides (min.insync.replicas, retention, ...) are read before the logs are created.
    await s.topicConfigs.load(states.map((p) => p.topicName));
    const requests = states.map((p) => ({ ...toPartitionState(p), isNew: p.isNew ?? false }));
    // New logs are created first, letting the event loop turn (thousands must not stall the ZooKeeper session).
    if (req.controllerEpoch >= s.replicaManager.controllerEpoch) await s.replicaManager.createLogsFor(requests);
    const liveLeaders = req.liveLeaders.map((l) => ({ brokerId: l.brokerId, host: l.hostName, port: l.port }));
    // Applied LEADERSHIP_CHUNK partitions at a time with a turn for the event loop in between (Kafka applies them one
    // by one too); the lock keeps other controller requests out meanwhile.
    const result = { errorCode: ErrorCode.NONE as number, partitionErrors: [] as { topic: string; partition: number; errorCode: number }[] };
    for (let i = 0; i < requests.length || i === 0; i += LEADERSHIP_CHUNK) {
      if (i > 0) await new Promise<void>((resolve) => setImmediate(resolve));
      const chunk = s.replicaManager.becomeLeaderOrFollower(req.controllerId, req.controllerEpoch, requests.slice(i, i + LEADERSHIP_CHUNK), liveLeaders);
      if (chunk.errorCode !== ErrorCode.NONE) {
        result.errorCode = chunk.errorCode;
        break;
      }
      result.partitionErrors.push(...chunk.partitionErrors);
    }
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
