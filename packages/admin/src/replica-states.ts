import type { KafkaServer, CachedPartitionState } from '@gregor/broker';
import type { PartitionOffsets } from './partition-offsets.js';

/** One replica of a partition: its log end and high watermark as far as this broker knows them. */
export interface ReplicaState {
  brokerId: number;
  inSync: boolean;
  /** Whether the broker is alive in this broker's metadata. */
  online: boolean;
  logEndOffset: number | null;
  highWatermark: number | null;
  /** Leader's log end minus this replica's, when both are known. */
  lag: number | null;
  /** Milliseconds since the leader last saw this follower caught up (leader's view only). */
  lastCaughtUpMsAgo: number | null;
}

/**
 * Per-replica state. The leader knows every follower's LEO (from their fetches), so when this broker
 * leads the partition the answer is complete (`source: 'leader'`). Otherwise it holds the leader's
 * offsets (asked over the wire) and this broker's own replica; other followers' LEOs are null
 * (`source: 'partial'`): ask the leader's admin API for them.
 */
export function replicaStates(server: KafkaServer, topic: string, s: CachedPartitionState, leaderOffsets: PartitionOffsets | undefined): { source: 'leader' | 'partial'; replicas: ReplicaState[] } {
  const now = Date.now();
  const local = server.replicaManager.getPartition(topic, s.partition);
  const alive = (id: number) => server.metadataCache.isBrokerAlive(id);
  if (local?.isLeader && local.log) {
    const leo = local.logEndOffset;
    return {
      source: 'leader',
      replicas: s.replicas.map((id) => {
        if (id === server.brokerId) {
          return { brokerId: id, inSync: local.isr.includes(id), online: true, logEndOffset: leo, highWatermark: local.highWatermark, lag: 0, lastCaughtUpMsAgo: 0 };
        }
        const remote = local.remoteReplicas.get(id);
        const remoteLeo = remote && remote.logEndOffset >= 0 ? remote.logEndOffset : null;
        return {
          brokerId: id,
          inSync: local.isr.includes(id),
          online: alive(id),
          logEndOffset: remoteLeo,
          // A follower's HW is at most the leader's, and at most its own LEO (it learns the HW from its fetches).
          highWatermark: remoteLeo === null ? null : Math.min(remoteLeo, local.highWatermark),
          lag: remoteLeo === null ? null : Math.max(0, leo - remoteLeo),
          lastCaughtUpMsAgo: remote && remote.lastCaughtUpTimeMs > 0 ? Math.max(0, now - remote.lastCaughtUpTimeMs) : null,
        };
      }),
    };
  }
  const leaderLeo = leaderOffsets?.logEndOffset ?? null;
  return {
    source: 'partial',
    replicas: s.replicas.map((id) => {
      let logEndOffset: number | null = null;
      let highWatermark: number | null = null;
      if (id === s.leader) {
        logEndOffset = leaderLeo;
        highWatermark = leaderOffsets?.highWatermark ?? null;
      } else if (id === server.brokerId && local?.log) {
        logEndOffset = local.logEndOffset;
        highWatermark = local.highWatermark;
      }
      return {
        brokerId: id,
        inSync: s.isr.includes(id),
        online: alive(id),
        logEndOffset,
        highWatermark,
        lag: logEndOffset === null || leaderLeo === null ? null : Math.max(0, leaderLeo - logEndOffset),
        lastCaughtUpMsAgo: null,
      };
    }),
  };
}
