import type { AdminContext } from './admin-context.js';
import { getFromPeer, peerAdminUrl } from './peer-admin.js';
import type { TopicDescription } from './topic-view.js';

/**
 * Completes a description's per-replica states: a partition this broker does not lead has only the
 * leader's offsets and this broker's own replica ('partial'); its leader knows every follower's LEO,
 * so its admin server is asked (`?peers=false`, no further hops). A leader that runs no admin server
 * or does not answer leaves the partition partial.
 */
export async function withLeaderReplicaStates(ctx: AdminContext, d: TopicDescription, authorization: string | undefined): Promise<TopicDescription> {
  const leaders = new Set(d.partitions.filter((p) => p.replicaStatesSource === 'partial' && p.leader >= 0 && p.leader !== ctx.server.brokerId).map((p) => p.leader));
  if (leaders.size === 0) return d;
  const fromLeaders = new Map<number, TopicDescription['partitions'][number]>();
  await Promise.all(
    [...leaders].map(async (leader) => {
      try {
        const url = await peerAdminUrl(ctx, leader);
        if (!url) return;
        const answer = await getFromPeer<TopicDescription>(url, `/v1/topics/${encodeURIComponent(d.name)}?peers=false`, authorization);
        for (const p of answer.partitions) if (p.replicaStatesSource === 'leader' && p.leader === leader) fromLeaders.set(p.partition, p);
      } catch {
        // Left partial: the description says so.
      }
    }),
  );
  return {
    ...d,
    partitions: d.partitions.map((p) => {
      const theirs = fromLeaders.get(p.partition);
      return theirs && p.replicaStatesSource === 'partial' && theirs.leader === p.leader ? { ...p, replicaStates: theirs.replicaStates, replicaStatesSource: 'leader' } : p;
    }),
  };
}
