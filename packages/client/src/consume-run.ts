import { CorruptDataError, ErrorCode, GregorError, KafkaProtocolError, backoffMs } from '@gregor/common';
import { AbortError, AbstractFetcherThread, type Connection, type FetcherOptions, type PartitionFetchState } from '@gregor/net';
import type { FetchablePartitionResponse } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import { ConsumedChunk, nextFetchOffset } from './consumed-chunk.js';

/** What `Consumer.consume` reads of one partition. */
export interface ConsumedPartition {
  partition: number;
  position: number;
  /** Exclusive end offset when consuming untilEnd. */
  end: number;
  partitionMaxBytes: number;
}

export interface ConsumeRunSettings {
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  maxDecompressedBytes: number;
  fetchSessions: boolean;
  /** Consecutive failures tolerated before the run fails with the last one. */
  retries: number;
  retryBackoffMs: number;
  retryBackoffMaxMs: number;
}

/**
 * One `Consumer.consume` call on the shared fetch loop: one AbstractFetcherThread per partition leader
 * (each with its own connection and fetch session, closed when the run ends), feeding one buffer that
 * the async iterator drains. A partition that delivered records is paused until the iterator takes the
 * buffer; its next Fetch then runs while the iterator hands that run out (one response ahead, bounded). Partitions
 * a leader cannot serve are routed again after a metadata refresh; retriable failures are retried with
 * backoff up to `retries` in a row, anything else ends the run with that error.
 */
export class ConsumeRun {
  readonly #client: KafkaClient;
  readonly #topic: string;
  readonly #settings: ConsumeRunSettings;
  readonly #active: Map<number, ConsumedPartition>;
  readonly #threads = new Map<number, ConsumeFetcherThread>();
  /** Partitions waiting for the buffer to drain, or for a leader. */
  readonly #paused = new Set<number>();
  readonly #timers = new Set<NodeJS.Timeout>();
  #buffer: ConsumedChunk[] = [];
  #failures = 0;
  #error: unknown = null;
  #wake: (() => void) | null = null;
  #closed = false;

  constructor(client: KafkaClient, topic: string, active: Map<number, ConsumedPartition>, settings: ConsumeRunSettings) {
    this.#client = client;
    this.#topic = topic;
    this.#active = active;
    this.#settings = settings;
    for (const p of active.keys()) this.#paused.add(p);
  }

  /**
   * The next run of fetched records, or null once every partition reached its end. Partitions paused
   * because they delivered are routed again before the run is handed out, so their next Fetch is in
   * flight while the application works through it: per partition at most one response waits in the
   * buffer besides the run being handed out. A ConsumeIterator hands them out one by one.
   */
  async nextBatch(signal: AbortSignal | undefined): Promise<ConsumedChunk[] | null> {
    for (;;) {
      if (signal?.aborted) throw new AbortError('consume aborted', { cause: signal.reason });
      if (this.#error !== null) throw this.#error;
      if (this.#buffer.length > 0) {
        const batch = this.#buffer;
        this.#buffer = [];
        if (this.#paused.size > 0) await this.#route([...this.#paused]);
        return batch;
      }
      if (this.#active.size === 0) return null;
      if (this.#paused.size > 0) await this.#route([...this.#paused]);
      if (this.#buffer.length > 0 || this.#error !== null || signal?.aborted) continue;
      const onAbort = () => this.#notify();
      signal?.addEventListener('abort', onAbort, { once: true });
      try {
        await new Promise<void>((resolve) => (this.#wake = resolve));
      } finally {
        this.#wake = null;
        signal?.removeEventListener('abort', onAbort);
      }
    }
  }

  /** Stops every fetcher (closing their fetch sessions) and every retry timer. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const t of this.#timers) clearTimeout(t);
    this.#timers.clear();
    const threads = [...this.#threads.values()];
    this.#threads.clear();
    await Promise.all(threads.map((t) => t.shutdown()));
  }

  #notify(): void {
    this.#wake?.();
  }

  #fail(error: unknown): void {
    this.#error ??= error;
    this.#notify();
  }

  /** A retriable failure: counted, and the run fails once there were more than `retries` in a row. */
  #retriable(error: GregorError): boolean {
    if (++this.#failures > this.#settings.retries) {
      this.#fail(error);
      return false;
    }
    return true;
  }

  /** Hands paused partitions to their leaders' fetchers; a partition without a leader yet is retried after a backoff. */
  async #route(partitions: number[]): Promise<void> {
    let failed: GregorError | undefined;
    const leaderless: number[] = [];
    for (const partition of partitions) {
      const state = this.#active.get(partition);
      this.#paused.delete(partition);
      if (!state || this.#closed) continue;
      let leader: number;
      try {
        leader = await this.#client.leaderFor(this.#topic, partition);
      } catch (error) {
        if (!(error instanceof GregorError && error.retriable)) return this.#fail(error);
        failed = error;
        leaderless.push(partition);
        continue;
      }
      this.#fetcherFor(leader).addPartitions([
        { topic: this.#topic, partition, fetchOffset: state.position, currentLeaderEpoch: -1, truncating: false, partitionMaxBytes: state.partitionMaxBytes },
      ]);
    }
    if (failed) this.#retryLater(failed, leaderless);
  }

  /** Backs off, refreshes the topic's metadata and routes the partitions again. */
  #retryLater(error: GregorError, partitions: number[]): void {
    if (this.#closed || !this.#retriable(error)) return;
    const timer = setTimeout(() => {
      this.#timers.delete(timer);
      void this.#client
        .refreshMetadata([this.#topic])
        .catch(() => undefined)
        .then(() => (this.#closed ? undefined : this.#route(partitions)))
        .catch((e: unknown) => this.#fail(e));
    }, backoffMs(this.#failures - 1, this.#settings.retryBackoffMs, this.#settings.retryBackoffMaxMs));
    this.#timers.add(timer);
  }

  #fetcherFor(leader: number): ConsumeFetcherThread {
    let thread = this.#threads.get(leader);
    const broker = this.#client.broker(leader)!;
    if (thread && (thread.opts.source.host !== broker.host || thread.opts.source.port !== broker.port)) {
      // The broker came back on another address: retire the old fetcher; its partitions are routed again.
      for (const s of thread.partitions()) {
        const state = this.#active.get(s.partition);
        if (!state) continue;
        state.position = s.fetchOffset;
        this.#paused.add(s.partition);
      }
      void thread.shutdown();
      thread = undefined;
    }
    if (!thread) {
      const s = this.#settings;
      const client = this.#client;
      thread = new ConsumeFetcherThread(
        {
          name: `ConsumerFetcher-${client.clientId}-${this.#topic}-${leader}`,
          source: { brokerId: leader, host: broker.host, port: broker.port },
          clientId: client.clientId,
          connect: (source) => client.dedicatedConnection(source),
          replicaId: -1,
          maxWaitMs: s.maxWaitMs,
          minBytes: s.minBytes,
          maxBytes: s.maxBytes,
          partitionMaxBytes: 1_048_576, // every partition carries its own
          backoffMs: s.retryBackoffMs,
          requestTimeoutMs: client.requestTimeoutMs,
          fetchSessions: s.fetchSessions,
          closeSessionOnShutdown: true,
          logger: client.logger,
        },
        this,
      );
      this.#threads.set(leader, thread);
      thread.start();
    }
    return thread;
  }

  // ---- called by the fetchers ---------------------------------------------------------------

  /** Queues a partition's records (decoded later, as they are handed out); returns the next fetch offset. */
  onData(fetcher: ConsumeFetcherThread, fs: PartitionFetchState, data: FetchablePartitionResponse): number {
    const state = this.#active.get(fs.partition);
    if (!state || this.#error !== null) return fs.fetchOffset;
    this.#failures = 0;
    const recordSet = data.recordSet;
    if (!recordSet || recordSet.length === 0) return fs.fetchOffset;
    // Records before a batch that cannot be decoded are handed out; the run fails once that batch is first.
    const { nextOffset, error } = nextFetchOffset(recordSet, fs.fetchOffset);
    if (error && nextOffset === fs.fetchOffset) {
      this.#fail(new CorruptDataError(`fetch ${this.#topic}-${fs.partition} at offset ${fs.fetchOffset}: ${error.message}`, { cause: error }));
      return fs.fetchOffset;
    }
    const delivered = nextOffset > fs.fetchOffset;
    if (delivered) this.#buffer.push(new ConsumedChunk(this.#topic, fs.partition, recordSet, fs.fetchOffset, state.end, this.#settings.maxDecompressedBytes));
    if (nextOffset === fs.fetchOffset) {
      // The next batch is larger than partitionMaxBytes: ask for more next time.
      state.partitionMaxBytes = Math.min(state.partitionMaxBytes * 2, Math.max(this.#settings.maxBytes, state.partitionMaxBytes));
      fs.partitionMaxBytes = state.partitionMaxBytes;
      return nextOffset;
    }
    state.position = nextOffset;
    if (state.position >= state.end) {
      this.#active.delete(fs.partition);
      fetcher.removePartitions([fs]);
    } else if (delivered) {
      // Paused until the iterator takes the buffer (then fetched again while that run is handed out).
      fetcher.removePartitions([fs]);
      this.#paused.add(fs.partition);
    }
    this.#notify();
    return nextOffset;
  }

  /** Partitions the leader answered with an error: retriable ones are routed again, others end the run. */
  onPartitionErrors(states: PartitionFetchState[], errorCode: number): void {
    const error = new KafkaProtocolError(errorCode, `fetch ${this.#topic}-${states.map((s) => s.partition).join(',')} at offset ${states.map((s) => s.fetchOffset).join(',')} failed`);
    if (!error.retriable) return this.#fail(error);
    for (const s of states) {
      const state = this.#active.get(s.partition);
      if (state) state.position = s.fetchOffset;
    }
    this.#retryLater(error, states.map((s) => s.partition).filter((p) => this.#active.has(p)));
  }

  /** A fetch round failed: the fetcher retries by itself; partitions whose leader moved go to the new leader. */
  async onFetchFailed(fetcher: ConsumeFetcherThread, error: unknown): Promise<void> {
    if (!(error instanceof GregorError && error.retriable)) return this.#fail(error);
    if (!this.#retriable(error)) return;
    await this.#client.refreshMetadata([this.#topic]).catch(() => undefined);
    const moved = fetcher.partitions().filter((s) => this.#cachedLeader(s.partition) !== fetcher.opts.source.brokerId);
    if (moved.length === 0) return;
    fetcher.removePartitions(moved);
    for (const s of moved) {
      const state = this.#active.get(s.partition);
      if (!state) continue;
      state.position = s.fetchOffset;
      this.#paused.add(s.partition);
    }
    this.#notify();
  }

  #cachedLeader(partition: number): number {
    return this.#client.topic(this.#topic)?.partitions.find((p) => p.partition === partition)?.leader ?? -1;
  }
}

/** Fetches one leader's partitions for a ConsumeRun (replicaId -1, no truncation). */
class ConsumeFetcherThread extends AbstractFetcherThread {
  readonly #run: ConsumeRun;

  constructor(opts: FetcherOptions, run: ConsumeRun) {
    super(opts);
    this.#run = run;
  }

  protected processPartitionData(state: PartitionFetchState, data: FetchablePartitionResponse): number {
    return this.#run.onData(this, state, data);
  }

  protected async handleOffsetOutOfRange(state: PartitionFetchState, _connection: Connection): Promise<number> {
    // Not retriable: the consumer's caller chose the position.
    this.removePartitions([state]);
    this.#run.onPartitionErrors([state], ErrorCode.OFFSET_OUT_OF_RANGE);
    return state.fetchOffset;
  }

  protected handlePartitionsWithErrors(states: PartitionFetchState[], errorCode: number): void {
    this.#run.onPartitionErrors(states, errorCode);
  }

  protected override onFetchFailed(error: unknown): Promise<void> {
    return this.#run.onFetchFailed(this, error);
  }
}
