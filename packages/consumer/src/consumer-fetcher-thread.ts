import { ErrorCode, errorName, KafkaProtocolError } from '@gregor/common';
import { AbstractFetcherThread, type Connection, type FetcherOptions, type PartitionFetchState } from '@gregor/net';
import { ListOffsets, type FetchablePartitionResponse } from '@gregor/protocol';
import type { AutoOffsetReset } from './consumer-config.js';
import type { PartitionTopicInfo } from './partition-topic-info.js';

export interface ConsumerFetcherHooks {
  /** The owned partition, or undefined once a rebalance dropped it. */
  info(topic: string, partition: number): PartitionTopicInfo | undefined;
  /** The leader could not serve these partitions: back to the leader finder. */
  onPartitionsFailed(states: PartitionFetchState[], errorCode: number): void;
}

const key = (topic: string, partition: number) => `${topic}-${partition}`;

/**
 * Fetches one broker's partitions for the consumer (Kafka's ConsumerFetcherThread) on the fetch loop it
 * shares with the replica fetcher (replicaId -1). Data goes to each partition's stream queue; a partition
 * whose queue is full is paused (taken out of the fetch) until its stream takes a chunk, which is how a
 * slow application holds memory bounded. OFFSET_OUT_OF_RANGE resets per `auto.offset.reset`.
 */
export class ConsumerFetcherThread extends AbstractFetcherThread {
  readonly #hooks: ConsumerFetcherHooks;
  readonly #autoOffsetReset: AutoOffsetReset;
  /** Paused partitions and the unsubscribe of their queue's space listener. */
  readonly #paused = new Map<string, () => void>();
  #stopped = false;
  /** Last time the leader answered a fetch (or partitions were added): see `silentForMs`. */
  #lastAnswerAt = Date.now();

  constructor(opts: FetcherOptions, autoOffsetReset: AutoOffsetReset, hooks: ConsumerFetcherHooks) {
    super(opts);
    this.#hooks = hooks;
    this.#autoOffsetReset = autoOffsetReset;
  }

  /** Partitions fetched or paused here. */
  get assignedCount(): number {
    return this.partitionCount + this.#paused.size;
  }

  pausedCount(): number {
    return this.#paused.size;
  }

  /**
   * How long the leader has not answered while partitions were being fetched. The shared fetch loop
   * retries a failed request by itself; the manager uses this to hand the partitions to the leader
   * finder, as Kafka's consumer does after a failed request.
   */
  silentForMs(now = Date.now()): number {
    return this.partitionCount === 0 ? 0 : now - this.#lastAnswerAt;
  }

  addInfos(infos: PartitionTopicInfo[]): void {
    if (this.partitionCount === 0) this.#lastAnswerAt = Date.now();
    this.addPartitions(infos.map((i) => ({ topic: i.topic, partition: i.partition, fetchOffset: i.fetchedOffset, currentLeaderEpoch: -1, truncating: i.fetchedOffset < 0 })));
  }

  override removePartitions(tps: { topic: string; partition: number }[]): void {
    super.removePartitions(tps);
    for (const tp of tps) this.#resumeListenerOff(key(tp.topic, tp.partition));
  }

  override async shutdown(): Promise<void> {
    this.#stopped = true;
    for (const k of [...this.#paused.keys()]) this.#resumeListenerOff(k);
    await super.shutdown();
  }

  /** With a fetch session an idle leader answers with no partitions: the answer itself shows it is alive. */
  protected override onFetchResponse(): void {
    this.#lastAnswerAt = Date.now();
  }

  protected processPartitionData(state: PartitionFetchState, data: FetchablePartitionResponse): number {
    this.#lastAnswerAt = Date.now();
    const info = this.#hooks.info(state.topic, state.partition);
    if (!info) return state.fetchOffset;
    if (info.fetchedOffset !== state.fetchOffset) return state.fetchOffset; // reset meanwhile
    info.highWatermark = data.highWatermark;
    const { nextOffset, room } = info.enqueue(data.recordSet, state.fetchOffset);
    if (!room) this.#pause(info, state);
    return nextOffset;
  }

  /** Partitions without a committed offset start per auto.offset.reset (the fetch loop's truncation step runs before the first fetch). */
  protected override async truncate(states: PartitionFetchState[], connection: Connection): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    for (const s of states) out.set(key(s.topic, s.partition), await this.#resetOffset(s, connection, false));
    return out;
  }

  protected async handleOffsetOutOfRange(state: PartitionFetchState, connection: Connection): Promise<number> {
    return this.#resetOffset(state, connection, true);
  }

  async #resetOffset(state: PartitionFetchState, connection: Connection, outOfRange: boolean): Promise<number> {
    this.#lastAnswerAt = Date.now();
    const timestamp = this.#autoOffsetReset === 'smallest' ? -2 : -1;
    const r = await connection.send(ListOffsets, {
      replicaId: -1,
      isolationLevel: 0,
      topics: [{ name: state.topic, partitions: [{ partitionIndex: state.partition, currentLeaderEpoch: -1, timestamp }] }],
    });
    const p = r.topics[0]?.partitions[0];
    if (!p || p.errorCode !== ErrorCode.NONE) {
      throw new KafkaProtocolError(p?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR, `ListOffsets for ${state.topic}-${state.partition} failed: ${errorName(p?.errorCode ?? -1)}`);
    }
    const info = this.#hooks.info(state.topic, state.partition);
    if (outOfRange) this.log.warn({ topic: state.topic, partition: state.partition, from: state.fetchOffset, to: p.offset, reset: this.#autoOffsetReset }, 'offset out of range: resetting');
    if (info) {
      info.resetFetchOffset(p.offset);
      info.resetConsumedOffset(p.offset);
    }
    return p.offset;
  }

  protected handlePartitionsWithErrors(states: PartitionFetchState[], errorCode: number): void {
    this.#lastAnswerAt = Date.now();
    this.log.info({ partitions: states.map((s) => key(s.topic, s.partition)), error: errorName(errorCode) }, 'partitions back to the leader finder');
    this.#hooks.onPartitionsFailed(states, errorCode);
  }

  /** Takes the partition out of the fetch until its queue has room again. */
  #pause(info: PartitionTopicInfo, state: PartitionFetchState): void {
    const k = key(state.topic, state.partition);
    super.removePartitions([state]);
    if (this.#paused.has(k)) return;
    const off = info.queue.onSpace(() => {
      if (this.#stopped || this.#hooks.info(info.topic, info.partition) !== info) return;
      this.#resumeListenerOff(k);
      this.addInfos([info]);
    });
    this.#paused.set(k, off);
  }

  #resumeListenerOff(k: string): void {
    const off = this.#paused.get(k);
    if (!off) return;
    off();
    this.#paused.delete(k);
  }
}
