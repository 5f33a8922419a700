import { ErrorCode, errorName } from '@gregor/common';
import { AbstractFetcherThread, type Connection, type FetcherOptions, type PartitionFetchState } from '@gregor/client';
import { forEachBatch, ListOffsets, OffsetsForLeaderEpoch, type FetchablePartitionResponse } from '@gregor/protocol';
import type { Partition } from '../cluster/partition.js';

export interface ReplicaFetcherHooks {
  partition(topic: string, partition: number): Partition | undefined;
  /** Data was appended: wake waiting fetches and HW-dependent operations. */
  onAppended(p: Partition): void;
  /** The follower raised its log start offset to the leader's (DeleteRecords or retention on the leader). */
  onLogStartOffsetIncremented(p: Partition): void;
  /** The source could not serve these partitions; retry later. */
  onPartitionsFailed(states: PartitionFetchState[], errorCode: number): void;
}

const key = (topic: string, partition: number) => `${topic}-${partition}`;

/**
 * A follower's fetch loop against one leader (Kafka's ReplicaFetcherThread): appends what the leader
 * has, keeps the follower's high watermark one round-trip behind the leader's, and truncates with
 * OffsetsForLeaderEpoch (KIP-101/279) before fetching so divergent records never survive.
 */
export class ReplicaFetcherThread extends AbstractFetcherThread {
  readonly #hooks: ReplicaFetcherHooks;

  constructor(opts: FetcherOptions, hooks: ReplicaFetcherHooks) {
    super(opts);
    this.#hooks = hooks;
  }

  protected processPartitionData(state: PartitionFetchState, data: FetchablePartitionResponse): number {
    const p = this.#hooks.partition(state.topic, state.partition);
    if (!p || !p.log || p.isLeader) return state.fetchOffset;
    const log = p.log;
    const records = data.recordSet;
    if (records && records.length > 0) {
      // A response may end with a partial batch; append only whole ones.
      const complete = forEachBatch(records, () => {}, { allowPartialTail: true });
      if (complete > 0) log.appendAsFollower(records.subarray(0, complete));
    }
    // Follower HW = min(leader HW, own LEO): one round-trip behind the leader.
    const hw = Math.min(data.highWatermark, log.logEndOffset);
    if (hw > log.highWatermark) log.highWatermark = hw;
    // Followers follow the leader's log start (Kafka: log.maybeIncrementLogStartOffset(leaderLogStartOffset)); it
    // cannot pass our HW, since we fetched at or above it, but the bound keeps a stray answer from failing the fetch.
    const leaderLogStart = data.logStartOffset ?? -1;
    if (leaderLogStart > log.logStartOffset && log.maybeIncrementLogStartOffset(Math.min(leaderLogStart, log.highWatermark))) {
      this.#hooks.onLogStartOffsetIncremented(p);
    }
    this.#hooks.onAppended(p);
    return log.logEndOffset;
  }

  /** Sent as the Fetch's log_start_offset, so the leader knows our low watermark for DeleteRecords. */
  protected override fetchLogStartOffset(state: PartitionFetchState): number {
    return this.#hooks.partition(state.topic, state.partition)?.log?.logStartOffset ?? -1;
  }

  protected async handleOffsetOutOfRange(state: PartitionFetchState, connection: Connection): Promise<number> {
    const p = this.#hooks.partition(state.topic, state.partition);
    if (!p?.log) return state.fetchOffset;
    const leaderEnd = await this.#leaderOffset(connection, state, -1);
    if (leaderEnd < state.fetchOffset) {
      // We are ahead of the leader: only possible after an unclean election. Keep the leader's history.
      this.log.error({ partition: key(state.topic, state.partition), leaderEnd, ours: state.fetchOffset }, 'follower ahead of leader: truncating (unclean leader election)');
      p.log.truncateTo(leaderEnd);
      return p.log.logEndOffset;
    }
    // We are behind the leader's log start (retention removed what we need): start over there.
    const leaderStart = await this.#leaderOffset(connection, state, -2);
    this.log.warn({ partition: key(state.topic, state.partition), leaderStart }, 'follower behind the leader log start: restarting from it');
    p.log.truncateFullyAndStartAt(leaderStart);
    return leaderStart;
  }

  async #leaderOffset(connection: Connection, state: PartitionFetchState, timestamp: number): Promise<number> {
    const r = await connection.send(ListOffsets, {
      replicaId: this.opts.replicaId,
      isolationLevel: 0,
      topics: [{ name: state.topic, partitions: [{ partitionIndex: state.partition, currentLeaderEpoch: state.currentLeaderEpoch, timestamp }] }],
    });
    const part = r.topics[0]?.partitions[0];
    if (!part || part.errorCode !== ErrorCode.NONE) throw new Error(`ListOffsets failed: ${errorName(part?.errorCode ?? -1)}`);
    return part.offset;
  }

  /**
   * KIP-101/279 truncation: ask the leader where our latest epoch ends on its side and cut our log
   * there, so records written by a leader of an epoch the new leader never saw are removed, and
   * nothing the leader has is lost. Without any epoch history we fall back to our high watermark.
   */
  protected override async truncate(states: PartitionFetchState[], connection: Connection): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const withEpochs: { state: PartitionFetchState; p: Partition; epoch: number }[] = [];
    for (const state of states) {
      const p = this.#hooks.partition(state.topic, state.partition);
      if (!p?.log) continue;
      const epoch = p.log.leaderEpochCache.latestEpoch;
      if (epoch < 0) {
        p.log.truncateTo(p.log.highWatermark);
        out.set(key(state.topic, state.partition), p.log.logEndOffset);
      } else {
        withEpochs.push({ state, p, epoch });
      }
    }
    if (withEpochs.length === 0) return out;
    const byTopic = new Map<string, typeof withEpochs>();
    for (const e of withEpochs) {
      let l = byTopic.get(e.state.topic);
      if (!l) byTopic.set(e.state.topic, (l = []));
      l.push(e);
    }
    const response = await connection.send(OffsetsForLeaderEpoch, {
      replicaId: this.opts.replicaId,
      topics: [...byTopic].map(([topic, list]) => ({
        topic,
        partitions: list.map((e) => ({ partition: e.state.partition, currentLeaderEpoch: e.state.currentLeaderEpoch, leaderEpoch: e.epoch })),
      })),
    });
    for (const t of response.topics) {
      for (const r of t.partitions) {
        const e = withEpochs.find((x) => x.state.topic === t.topic && x.state.partition === r.partition);
        if (!e) continue;
        const log = e.p.log!;
        if (r.errorCode !== ErrorCode.NONE) {
          this.log.debug({ partition: key(t.topic, r.partition), error: errorName(r.errorCode) }, 'OffsetsForLeaderEpoch failed; will retry');
          continue;
        }
        let truncateTo: number;
        if (r.endOffset < 0) {
          truncateTo = log.highWatermark; // the leader knows no epochs: pre-KIP-101 behaviour
        } else {
          // Where that epoch ends in our own history; if the leader's epoch is older than ours, the records of
          // our later epochs (which the leader never had) go too. Taking the smaller end is always safe.
          const ours = log.leaderEpochCache.endOffsetFor(r.leaderEpoch ?? e.epoch);
          truncateTo = ours.endOffset < 0 ? r.endOffset : Math.min(r.endOffset, ours.endOffset);
        }
        truncateTo = Math.min(truncateTo, log.logEndOffset);
        if (truncateTo < log.logEndOffset) {
          this.log.info({ partition: key(t.topic, r.partition), from: log.logEndOffset, to: truncateTo }, 'truncating follower log');
          log.truncateTo(truncateTo);
        }
        out.set(key(t.topic, r.partition), log.logEndOffset);
      }
    }
    return out;
  }

  protected handlePartitionsWithErrors(states: PartitionFetchState[], errorCode: number): void {
    this.#hooks.onPartitionsFailed(states, errorCode);
  }
}
