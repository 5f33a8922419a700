import { ErrorCode, errorName } from '@gregor/common';
import { AbstractFetcherThread, type Connection, type FetcherOptions, type PartitionFetchState } from '@gregor/client';
import { ListOffsets, OffsetsForLeaderEpoch, type FetchablePartitionResponse } from '@gregor/protocol';
import type { FetchingFrom, Partition } from '../cluster/partition.js';
import type { ReplicaLog } from '../cluster/replica-log.js';

export interface ReplicaFetcherHooks {
  partition(topic: string, partition: number): Partition<ReplicaLog> | undefined;
  /** Data was appended: wake waiting fetches and HW-dependent operations. */
  onAppended(p: Partition<ReplicaLog>): void;
  /** The follower raised its log start offset to the leader's (DeleteRecords or retention on the leader). */
  onLogStartOffsetIncremented(p: Partition<ReplicaLog>): void;
  /** The source could not serve these partitions; retry later. */
  onPartitionsFailed(states: PartitionFetchState[], errorCode: number): void;
}

const key = (topic: string, partition: number) => `${topic}-${partition}`;

/**
 * A follower's fetch loop against one leader (Kafka's ReplicaFetcherThread): appends what the leader
 * has, keeps the follower's high watermark one round-trip behind the leader's, and truncates with
 * OffsetsForLeaderEpoch (KIP-101/279) before fetching so divergent records never survive.
 * Every answer is about the leader's log in the leader epoch the request named; between sending it and
 * acting on it this broker may have been made leader, or follower of another epoch. So the log is only
 * changed through the Partition, which refuses unless this broker still follows that leader in that epoch.
 */
export class ReplicaFetcherThread extends AbstractFetcherThread {
  readonly #hooks: ReplicaFetcherHooks;

  constructor(opts: FetcherOptions, hooks: ReplicaFetcherHooks) {
    super(opts);
    this.#hooks = hooks;
  }

  #from(state: PartitionFetchState): FetchingFrom {
    return { leader: this.opts.source.brokerId, leaderEpoch: state.currentLeaderEpoch };
  }

  /** The fetch state is still the one a request was made for (not removed, nor re-added for another epoch). */
  #stillFetching(state: PartitionFetchState): boolean {
    const current = this.fetchState(state.topic, state.partition);
    return !!current && current.currentLeaderEpoch === state.currentLeaderEpoch;
  }

  #dropped(state: PartitionFetchState, what: string): void {
    const p = this.#hooks.partition(state.topic, state.partition);
    this.log.info(
      { partition: key(state.topic, state.partition), fetchedFrom: this.#from(state), leader: p?.leaderReplicaId, leaderEpoch: p?.leaderEpoch },
      `${what} answer dropped: this broker no longer follows that leader in that epoch`,
    );
  }

  protected processPartitionData(state: PartitionFetchState, data: FetchablePartitionResponse): number {
    const p = this.#hooks.partition(state.topic, state.partition);
    if (!p) return state.fetchOffset;
    // As it came: the log scans each batch once, leaving out a partial last batch (a fetch answer may end with one).
    const result = p.appendRecordsAsFollower(data.recordSet, data.highWatermark, data.logStartOffset ?? -1, this.#from(state));
    if (!result) return state.fetchOffset;
    if (result.logStartOffsetMoved) this.#hooks.onLogStartOffsetIncremented(p);
    this.#hooks.onAppended(p);
    return p.logEndOffset;
  }

  /** Sent as the Fetch's log_start_offset, so the leader knows our low watermark for DeleteRecords. */
  protected override fetchLogStartOffset(state: PartitionFetchState): number {
    return this.#hooks.partition(state.topic, state.partition)?.log?.logStartOffset ?? -1;
  }

  /**
   * OFFSET_OUT_OF_RANGE (Kafka's fetchOffsetAndTruncate). Leader's LEO below ours: only after an unclean election;
   * keep the leader's history by truncating to its LEO. Else our LEO is below the leader's log start only if
   * retention or DeleteRecords removed what we need: then, and only then, start the log over at the leader's log
   * start. Otherwise keep the log and fetch again from our LEO.
   */
  protected async handleOffsetOutOfRange(state: PartitionFetchState, connection: Connection): Promise<number> {
    const p = this.#hooks.partition(state.topic, state.partition);
    const from = this.#from(state);
    if (!p?.isFollowing(from)) return state.fetchOffset;
    const leaderEnd = await this.#leaderOffset(connection, state, -1);
    if (!this.#stillFetching(state) || !p.isFollowing(from)) {
      this.#dropped(state, 'ListOffsets(latest)');
      return state.fetchOffset;
    }
    const replicaEnd = p.logEndOffset;
    if (leaderEnd < replicaEnd) {
      this.log.error({ partition: key(state.topic, state.partition), leaderEnd, replicaEnd }, 'follower ahead of leader: truncating to its log end (unclean leader election)');
      p.truncateTo(leaderEnd, from);
      return p.logEndOffset;
    }
    const leaderStart = await this.#leaderOffset(connection, state, -2);
    if (!this.#stillFetching(state) || !p.isFollowing(from)) {
      this.#dropped(state, 'ListOffsets(earliest)');
      return state.fetchOffset;
    }
    const ours = p.logEndOffset;
    if (leaderStart > ours) {
      this.log.warn({ partition: key(state.topic, state.partition), leaderStart, replicaEnd: ours }, 'follower behind the leader log start: restarting the log there');
      p.truncateFullyAndStartAt(leaderStart, from);
      return leaderStart;
    }
    this.log.warn({ partition: key(state.topic, state.partition), leaderStart, leaderEnd, replicaEnd: ours }, 'fetch offset out of range, but our log end is inside the leader log: fetching again from it');
    return ours;
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
   * An answer that comes back after this broker stopped following that leader epoch is dropped.
   */
  protected override async truncate(states: PartitionFetchState[], connection: Connection): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    const withEpochs: { state: PartitionFetchState; p: Partition<ReplicaLog>; epoch: number }[] = [];
    for (const state of states) {
      const p = this.#hooks.partition(state.topic, state.partition);
      if (!p?.log || !p.isFollowing(this.#from(state))) continue;
      const epoch = p.log.leaderEpochCache.latestEpoch;
      if (epoch < 0) {
        p.truncateTo(p.highWatermark, this.#from(state));
        out.set(key(state.topic, state.partition), p.logEndOffset);
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
        if (r.errorCode !== ErrorCode.NONE) {
          this.log.debug({ partition: key(t.topic, r.partition), error: errorName(r.errorCode) }, 'OffsetsForLeaderEpoch failed; will retry');
          continue;
        }
        const from = this.#from(e.state);
        // Re-checked now, after the round trip: a promotion or a new epoch meanwhile makes this answer stale.
        if (!this.#stillFetching(e.state) || !e.p.isFollowing(from)) {
          this.#dropped(e.state, 'OffsetsForLeaderEpoch');
          continue;
        }
        const log = e.p.log!;
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
          this.log.info({ partition: key(t.topic, r.partition), from: log.logEndOffset, to: truncateTo, leaderEpoch: e.state.currentLeaderEpoch }, 'truncating follower log');
          e.p.truncateTo(truncateTo, from);
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
