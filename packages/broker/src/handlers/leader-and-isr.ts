import { ErrorCode } from '@gregor/common';
import { flattenPartitionStates, type LeaderAndIsrRequest, type LeaderAndIsrResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** LeaderAndIsr (from the controller): become leader or follower of the listed partitions. */
export function leaderAndIsrHandler(s: BrokerServices): ApiHandler<LeaderAndIsrRequest, LeaderAndIsrResponse> {
  return async (req) => {
    const states = flattenPartitionStates(req.ungroupedPartitionStates, req.topicStates);
    // Topic overrides (min.insync.replicas, retention, ...) are read before the logs are created.
    await s.topicConfigs.load(states.map((p) => p.topicName));
    const result = s.replicaManager.becomeLeaderOrFollower(
      req.controllerId,
      req.controllerEpoch,
      states.map((p) => ({
        topic: p.topicName,
        partition: p.partitionIndex,
        controllerEpoch: p.controllerEpoch,
        leader: p.leader,
        leaderEpoch: p.leaderEpoch,
        isr: p.isr,
        zkVersion: p.zkVersion,
        replicas: p.replicas,
        isNew: p.isNew ?? false,
      })),
      req.liveLeaders.map((l) => ({ brokerId: l.brokerId, host: l.hostName, port: l.port })),
    );
    if (result.errorCode === ErrorCode.NONE) {
      // The broker's own view follows the leadership it was just given.
      for (const p of states) {
        const existing = s.metadataCache.partition(p.topicName, p.partitionIndex);
        s.metadataCache.updatePartitionLeadership({
          topic: p.topicName,
          partition: p.partitionIndex,
          controllerEpoch: p.controllerEpoch,
          leader: p.leader,
          leaderEpoch: p.leaderEpoch,
          isr: p.isr,
          zkVersion: p.zkVersion,
          replicas: p.replicas,
          offlineReplicas: existing?.offlineReplicas ?? [],
        });
      }
    }
    return {
      errorCode: result.errorCode,
      partitionErrors: result.partitionErrors.map((e) => ({ topicName: e.topic, partitionIndex: e.partition, errorCode: e.errorCode })),
    };
  };
}
