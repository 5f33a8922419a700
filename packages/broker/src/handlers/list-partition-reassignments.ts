import { ErrorCode } from '@gregor/common';
import type { ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, OngoingTopicReassignment } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/**
 * ListPartitionReassignments (KIP-455): the controller's reassignments in progress, with each
 * partition's replica set and the replicas being added and removed; partitions not moving (or
 * unknown) are left out. Not the controller: top-level NOT_CONTROLLER.
 */
export function listPartitionReassignmentsHandler(s: BrokerServices): ApiHandler<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse> {
  return async (req) => {
    const partitions = req.topics === null ? null : req.topics.flatMap((t) => t.partitionIndexes.map((partition) => ({ topic: t.name, partition })));
    const r = await s.controller.listPartitionReassignments(partitions);
    if (r.errorCode !== ErrorCode.NONE) {
      const errorMessage = r.errorCode === ErrorCode.NOT_CONTROLLER ? 'This is not the correct controller for this cluster.' : null;
      return { throttleTimeMs: 0, errorCode: r.errorCode, errorMessage, topics: [] };
    }
    const byTopic = new Map<string, OngoingTopicReassignment>();
    for (const p of r.partitions) {
      let t = byTopic.get(p.topic);
      if (!t) byTopic.set(p.topic, (t = { name: p.topic, partitions: [] }));
      t.partitions.push({ partitionIndex: p.partition, replicas: p.replicas, addingReplicas: p.adding, removingReplicas: p.removing });
    }
    return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, errorMessage: null, topics: [...byTopic.values()] };
  };
}
