/**
 * LeaderAndIsr (v0-1 vs v2+), UpdateMetadata (v0-4 vs v5+) and StopReplica (v0 vs v1+) list
 * partitions flat with their topic name in old versions and grouped by topic in newer ones.
 * The controller builds one shape; these helpers let any version be encoded from either.
 */
export interface TopicGroup<P> {
  topicName: string;
  partitionStates: P[];
}

/** Every partition state with its topic name, from whichever of the two shapes is filled. */
export function flattenPartitionStates<P extends { topicName?: string }>(
  ungrouped: readonly P[] | undefined,
  grouped: readonly TopicGroup<P>[] | undefined,
): (P & { topicName: string })[] {
  const out: (P & { topicName: string })[] = (ungrouped ?? []).map((p) => ({ ...p, topicName: p.topicName ?? '' }));
  for (const t of grouped ?? []) for (const p of t.partitionStates) out.push({ ...p, topicName: t.topicName });
  return out;
}

/** Groups flat partition states by topic, keeping first-seen topic order. */
export function groupPartitionStates<P extends { topicName?: string }>(states: readonly P[]): TopicGroup<P>[] {
  const byTopic = new Map<string, P[]>();
  for (const p of states) {
    const name = p.topicName ?? '';
    let list = byTopic.get(name);
    if (list === undefined) byTopic.set(name, (list = []));
    list.push(p);
  }
  return [...byTopic].map(([topicName, partitionStates]) => ({ topicName, partitionStates }));
}
