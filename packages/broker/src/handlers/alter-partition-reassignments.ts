import { ErrorCode } from '@gregor/common';
import type { AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, ReassignableTopicResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

const NOT_CONTROLLER_MESSAGE = 'This is not the correct controller for this cluster.';

/**
 * AlterPartitionReassignments (KIP-455): the controller starts, replaces or cancels (null replicas)
 * each partition's reassignment and answers once the new replica set is recorded; progress is
 * followed with ListPartitionReassignments. Not the controller: top-level NOT_CONTROLLER.
 */
export function alterPartitionReassignmentsHandler(s: BrokerServices): ApiHandler<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse> {
  return async (req) => {
    const reassignments = req.topics.flatMap((t) => t.partitions.map((p) => ({ topic: t.name, partition: p.partitionIndex, replicas: p.replicas })));
    const r = await s.controller.alterPartitionReassignments(reassignments);
    if (r.errorCode !== ErrorCode.NONE) {
      return { throttleTimeMs: 0, errorCode: r.errorCode, errorMessage: r.errorCode === ErrorCode.NOT_CONTROLLER ? NOT_CONTROLLER_MESSAGE : null, responses: [] };
    }
    const byTopic = new Map<string, ReassignableTopicResponse>();
    for (const p of r.partitions) {
      let t = byTopic.get(p.topic);
      if (!t) byTopic.set(p.topic, (t = { name: p.topic, partitions: [] }));
      t.partitions.push({ partitionIndex: p.partition, errorCode: p.errorCode, errorMessage: p.errorMessage });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, responses: [...byTopic.values()] };
  };
}
