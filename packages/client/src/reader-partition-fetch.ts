import { CorruptDataError, ErrorCode, GregorError, KafkaProtocolError, backoffMs, sleep, whenAborted, type Logger } from '@gregor/common';
import { AbstractFetcherThread, type Connection, type FetcherOptions, type PartitionFetchState } from '@gregor/net';
import type { FetchablePartitionResponse } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import { ConsumedChunk, nextFetchOffset } from './consumed-chunk.js';

export interface ReaderPartitionSettings {
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  maxPartitionFetchBytes: number;
  maxDecompressedBytes: number;
}

export interface ReaderPartitionHooks {
  /**
   * Queues fetched records (decoded as the queue takes them), waiting for room; false when the generation ended
   * first. Rejects with a CorruptDataError at a batch that cannot be decoded, the records before it queued.
   */
  deliver(records: ConsumedChunk, signal: AbortSignal): Promise<boolean>;
  /** A batch at the position cannot be decoded: waiting fetchMessage() calls hear it. */
  corrupt(error: CorruptDataError): void;
  /** The position to start from when there is none (no committed offset, or out of range). */
  resetOffset(): Promise<number>;
}

/** Why a fetcher stopped before the generation ended. */
type Outcome = { retry: true; error: unknown } | { retry: false };

/**
 * One assigned partition of a Reader on the shared fetch loop: an AbstractFetcherThread against the
 * partition's leader, with its own connection (kafka-go reads each partition on its own connection, so
 * an idle partition's long poll holds up nothing else). The fetcher is replaced, after a metadata refresh
 * and a backoff, when the leader moves or answers with an error; records go to the Reader's queue, and
 * the next Fetch runs while they are queued; the partition is paused when a second response waits. `run()` ends when `signal` aborts.
 */
export class ReaderPartitionFetch {
  readonly #client: KafkaClient;
  readonly #topic: string;
  readonly #partition: number;
  readonly #settings: ReaderPartitionSettings;
  readonly #hooks: ReaderPartitionHooks;
  readonly #log: Logger;
  #position: number;
  #partitionMaxBytes: number;
  #failures = 0;
  /** Records being queued (the partition fetches on meanwhile, one response ahead). */
  #delivering: Promise<boolean> | null = null;

  constructor(client: KafkaClient, topic: string, partition: number, start: number, settings: ReaderPartitionSettings, hooks: ReaderPartitionHooks, log: Logger) {
    this.#client = client;
    this.#topic = topic;
    this.#partition = partition;
    this.#position = start;
    this.#settings = settings;
    this.#partitionMaxBytes = settings.maxPartitionFetchBytes;
    this.#hooks = hooks;
    this.#log = log;
  }

  get position(): number {
    return this.#position;
  }

  async run(signal: AbortSignal): Promise<void> {
    while (!signal.aborted) {
      let outcome: Outcome;
      try {
        if (this.#position < 0) this.#position = await this.#hooks.resetOffset();
        const leader = await this.#client.leaderFor(this.#topic, this.#partition);
        outcome = await this.#fetchFrom(leader, signal);
      } catch (error) {
        outcome = { retry: true, error };
      }
      if (signal.aborted || !outcome.retry) continue;
      this.#log.debug({ topic: this.#topic, partition: this.#partition, err: (outcome.error as Error).message }, 'fetch failed; retrying');
      await this.#client.refreshMetadata([this.#topic]).catch(() => undefined);
      await sleep(backoffMs(this.#failures++, 100, 1000), signal);
    }
  }

  /** Runs a fetcher against `leader` until the partition leaves it (error, leader moved) or the generation ends. */
  async #fetchFrom(leader: number, signal: AbortSignal): Promise<Outcome> {
    const broker = this.#client.broker(leader);
    if (!broker) return { retry: true, error: new KafkaProtocolError(ErrorCode.LEADER_NOT_AVAILABLE, `no leader for ${this.#topic}-${this.#partition}`) };
    let finish!: (outcome: Outcome) => void;
    const finished = new Promise<Outcome>((resolve) => (finish = resolve));
    // Also when aborted while the leader was looked up.
    const stopWatching = whenAborted(signal, () => finish({ retry: false }));
    const client = this.#client;
    const s = this.#settings;
    const thread = new ReaderFetcherThread(
      {
        name: `ReaderFetcher-${this.#topic}-${this.#partition}-${leader}`,
        source: { brokerId: leader, host: broker.host, port: broker.port },
        clientId: client.clientId,
        connect: (source) => client.dedicatedConnection(source),
        replicaId: -1,
        maxWaitMs: s.maxWaitMs,
        minBytes: s.minBytes,
        maxBytes: s.maxBytes,
        partitionMaxBytes: this.#partitionMaxBytes,
        backoffMs: 100,
        requestTimeoutMs: client.requestTimeoutMs,
        // Full fetches, as the Reader always sent: a fetch session per partition would fill the broker's cache.
        fetchSessions: false,
        logger: this.#log,
      },
      this,
      signal,
      finish,
    );
    thread.addPartitions([this.#fetchState()]);
    thread.start();
    try {
      return await finished;
    } finally {
      stopWatching();
      await thread.shutdown();
    }
  }

  #fetchState(): PartitionFetchState {
    return { topic: this.#topic, partition: this.#partition, fetchOffset: this.#position, currentLeaderEpoch: -1, truncating: false, partitionMaxBytes: this.#partitionMaxBytes };
  }

  // ---- called by the fetcher ------------------------------------------------------------------

  onData(thread: ReaderFetcherThread, state: PartitionFetchState, data: FetchablePartitionResponse, signal: AbortSignal, finish: (o: Outcome) => void): number {
    const position = state.fetchOffset;
    const recordSet = data.recordSet;
    if (!recordSet || recordSet.length === 0) {
      this.#failures = 0;
      return position;
    }
    // Records before a batch that cannot be decoded are handed out; the partition stops at that batch.
    const { nextOffset, error } = nextFetchOffset(recordSet, position);
    if (error && nextOffset === position) {
      const corrupt = new CorruptDataError(`fetch ${this.#topic}-${this.#partition} at offset ${position}: ${error.message}`, { cause: error });
      this.#corrupt(corrupt, position);
      thread.removePartitions([state]);
      finish({ retry: true, error: corrupt });
      return position;
    }
    this.#failures = 0;
    const records = new ConsumedChunk(this.#topic, this.#partition, recordSet, position, Number.MAX_SAFE_INTEGER, this.#settings.maxDecompressedBytes);
    if (nextOffset === position) {
      // The next batch is larger than partitionMaxBytes: ask for more next time.
      this.#partitionMaxBytes *= 2;
      state.partitionMaxBytes = this.#partitionMaxBytes;
      return position;
    }
    // The next Fetch goes out while the queue takes these records; a response arriving before they are
    // all queued waits behind them with the partition paused (back-pressure: one response ahead at most).
    this.#position = nextOffset;
    const previous = this.#delivering;
    const delivery = previous === null ? this.#hooks.deliver(records, signal) : previous.then((ok) => ok && !signal.aborted && this.#hooks.deliver(records, signal));
    this.#delivering = delivery;
    if (previous !== null) thread.removePartitions([state]);
    delivery.then(
      (delivered) => {
        if (this.#delivering === delivery) this.#delivering = null;
        if (!delivered || signal.aborted || previous === null) return;
        thread.addPartitions([this.#fetchState()]);
      },
      (e: unknown) => {
        if (this.#delivering === delivery) this.#delivering = null;
        if (e instanceof CorruptDataError) {
          // Read again from the corrupt batch (the records before it were queued): it fails there again.
          this.#position = records.position;
          this.#corrupt(e, records.position);
        }
        finish({ retry: true, error: e });
      },
    );
    return nextOffset;
  }

  /** kafka-go's ReadMessage returns it: every waiting fetchMessage() hears why. */
  #corrupt(error: CorruptDataError, offset: number): void {
    this.#log.error({ topic: this.#topic, partition: this.#partition, offset, err: error.message }, 'fetched batch cannot be decoded');
    this.#hooks.corrupt(error);
  }

  async onOffsetOutOfRange(state: PartitionFetchState): Promise<number> {
    this.#log.warn({ topic: this.#topic, partition: this.#partition, offset: state.fetchOffset }, 'offset out of range; resetting');
    this.#position = await this.#hooks.resetOffset();
    return this.#position;
  }

  onPartitionError(state: PartitionFetchState, errorCode: number, finish: (o: Outcome) => void): void {
    this.#position = state.fetchOffset;
    finish({ retry: true, error: new KafkaProtocolError(errorCode, `fetch ${this.#topic}-${this.#partition}`) });
  }

  /** The fetcher retries by itself; once the metadata names another leader, the partition follows it. */
  async onFetchFailed(thread: ReaderFetcherThread, error: unknown, finish: (o: Outcome) => void): Promise<void> {
    this.#log.debug({ topic: this.#topic, partition: this.#partition, err: (error as Error).message }, 'fetch failed; retrying');
    await this.#client.refreshMetadata([this.#topic]).catch(() => undefined);
    const leader = this.#client.topic(this.#topic)?.partitions.find((p) => p.partition === this.#partition)?.leader ?? -1;
    if (leader === thread.opts.source.brokerId) return;
    const state = thread.fetchState(this.#topic, this.#partition);
    if (state) this.#position = state.fetchOffset;
    finish({ retry: true, error: error instanceof GregorError ? error : new Error(String(error)) });
  }
}

/** Fetches one partition of a Reader from its leader (replicaId -1, no truncation). */
class ReaderFetcherThread extends AbstractFetcherThread {
  readonly #owner: ReaderPartitionFetch;
  readonly #signal: AbortSignal;
  readonly #finish: (o: Outcome) => void;

  constructor(opts: FetcherOptions, owner: ReaderPartitionFetch, signal: AbortSignal, finish: (o: Outcome) => void) {
    super(opts);
    this.#owner = owner;
    this.#signal = signal;
    this.#finish = finish;
  }

  protected processPartitionData(state: PartitionFetchState, data: FetchablePartitionResponse): number {
    return this.#owner.onData(this, state, data, this.#signal, this.#finish);
  }

  protected handleOffsetOutOfRange(state: PartitionFetchState, _connection: Connection): Promise<number> {
    return this.#owner.onOffsetOutOfRange(state);
  }

  protected handlePartitionsWithErrors(states: PartitionFetchState[], errorCode: number): void {
    for (const s of states) this.#owner.onPartitionError(s, errorCode, this.#finish);
  }

  protected override onFetchFailed(error: unknown): Promise<void> {
    return this.#owner.onFetchFailed(this, error, this.#finish);
  }
}
