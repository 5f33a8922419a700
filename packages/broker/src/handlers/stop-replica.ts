import type { StopReplicaRequest, StopReplicaResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** StopReplica (from the controller): stop serving partitions, and delete them for topic deletion. */
export function stopReplicaHandler(s: BrokerServices): ApiHandler<StopReplicaRequest, StopReplicaResponse> {
  // After any LeaderAndIsr before it (ReplicaManager.stateChange).
  return (req) => s.replicaManager.stateChange(() => {
    const partitions = [
      ...(req.ungroupedPartitions ?? []).map((p) => ({ topic: p.topicName, partition: p.partitionIndex })),
      ...(req.topics ?? []).flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition }))),
    ];
    const r = s.replicaManager.stopReplicas(req.controllerEpoch, req.deletePartitions, partitions);
    return {
      errorCode: r.errorCode,
      partitionErrors: r.partitionErrors.map((e) => ({ topicName: e.topic, partitionIndex: e.partition, errorCode: e.errorCode })),
    };
  });
}
