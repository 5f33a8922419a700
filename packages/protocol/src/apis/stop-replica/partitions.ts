import type { StopReplicaPartitionV0, StopReplicaRequest, StopReplicaTopicV1 } from './types.js';

/** Every partition of a request, whichever shape it was built or decoded in. */
export function stopReplicaPartitions(req: StopReplicaRequest): StopReplicaPartitionV0[] {
  const out = [...(req.ungroupedPartitions ?? [])];
  for (const t of req.topics ?? []) for (const partitionIndex of t.partitionIndexes) out.push({ topicName: t.name, partitionIndex });
  return out;
}

export function groupStopReplicaPartitions(partitions: readonly StopReplicaPartitionV0[]): StopReplicaTopicV1[] {
  const byTopic = new Map<string, number[]>();
  for (const p of partitions) {
    let list = byTopic.get(p.topicName);
    if (list === undefined) byTopic.set(p.topicName, (list = []));
    list.push(p.partitionIndex);
  }
  return [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes }));
}
