import { ErrorCode, KafkaProtocolError, backoffMs, errorName, sleep, silentLogger, type Logger } from '@gregor/common';
import { Fetch, type FetchablePartitionResponse, type FetchResponse } from '@gregor/protocol';
import { Connection } from './connection.js';
import { byTopic, FetchSessionHandler, INVALID_SESSION_ID } from './fetch-session-handler.js';
import type { ClientSecurity } from './security/client-security.js';

export interface FetcherSource {
  brokerId: number;
  host: string;
  port: number;
}

export interface FetcherOptions {
  /** Name for logs, e.g. `ReplicaFetcherThread-0-2`. */
  name: string;
  source: FetcherSource;
  clientId: string;
  /** Opens the connection to the source; default a Connection over TCP (unit tests pass an in-memory source). */
  connect?: (source: FetcherSource) => Connection;
  /** -1 for consumers, the broker id for followers. */
  replicaId: number;
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  partitionMaxBytes: number;
  /** Backoff after a failed fetch or when nothing is assigned. */
  backoffMs: number;
  requestTimeoutMs: number;
  /** Incremental fetch sessions (KIP-227) with the source broker; default true. */
  fetchSessions?: boolean;
  /** On shutdown, close the fetch session on the broker (epoch -1) instead of leaving it to be evicted (consumers). */
  closeSessionOnShutdown?: boolean;
  /** TLS/SASL of the connection to the source broker (followers: the inter-broker listener's). */
  security?: ClientSecurity;
  /**
   * A pool for the memory of large Fetch responses, given back once every partition of a response is processed.
   * Only for a fetcher whose processPartitionData keeps no view of the records it is given (a follower writes them
   * to its log before returning); a consumer that hands records on must not set it.
   */
  responseBuffers?: { acquire(size: number): Buffer; release(chunk: Buffer): void };
  logger?: Logger;
}

export interface PartitionFetchState {
  topic: string;
  partition: number;
  fetchOffset: number;
  /** Sent as current_leader_epoch so a stale leader is detected (-1 = unknown). */
  currentLeaderEpoch: number;
  /** The partition must be truncated (follower) before fetching. */
  truncating: boolean;
  /** This partition's max bytes when it differs from the fetcher's `partitionMaxBytes` (a consumer grows it for a large batch). */
  partitionMaxBytes?: number;
}

const key = (topic: string, partition: number) => `${topic}-${partition}`;

/**
 * One fetch loop against one source broker (Kafka's AbstractFetcherThread): repeatedly sends one
 * Fetch for every assigned partition and hands each partition's data to `processPartitionData`.
 * Followers (ReplicaFetcherThread) and the ZooKeeper consumer (ConsumerFetcherThread) extend it.
 * Requests go through a FetchSessionHandler (KIP-227): after the first full fetch, only partitions
 * whose fetch position changed are listed, and the broker answers only partitions with news.
 * The loop is owned by `start()`/`shutdown()`; shutdown closes the connection and waits for the loop.
 */
export abstract class AbstractFetcherThread {
  readonly opts: FetcherOptions;
  protected readonly log: Logger;
  readonly #partitions = new Map<string, PartitionFetchState>();
  readonly #abort = new AbortController();
  #connection: Connection | null = null;
  #loop: Promise<void> | null = null;
  #wake: (() => void) | null = null;
  #failures = 0;
  readonly #session: FetchSessionHandler;

  constructor(opts: FetcherOptions) {
    this.opts = opts;
    this.log = (opts.logger ?? silentLogger()).child({ fetcher: opts.name });
    this.#session = new FetchSessionHandler(opts.source.brokerId, { enabled: opts.fetchSessions ?? true, logger: this.log });
  }

  /** The fetch session with the source broker (id 0 = none yet). */
  get fetchSession(): FetchSessionHandler {
    return this.#session;
  }

  get name(): string {
    return this.opts.name;
  }

  get partitionCount(): number {
    return this.#partitions.size;
  }

  partitions(): PartitionFetchState[] {
    return [...this.#partitions.values()].map((p) => ({ ...p }));
  }

  fetchState(topic: string, partition: number): PartitionFetchState | undefined {
    return this.#partitions.get(key(topic, partition));
  }

  addPartitions(states: PartitionFetchState[]): void {
    for (const s of states) this.#partitions.set(key(s.topic, s.partition), { ...s });
    this.#wake?.();
  }

  removePartitions(tps: { topic: string; partition: number }[]): void {
    for (const tp of tps) this.#partitions.delete(key(tp.topic, tp.partition));
  }

  start(): void {
    this.#loop ??= this.#run();
  }

  async shutdown(): Promise<void> {
    this.#abort.abort();
    this.#wake?.();
    const c = this.#connection;
    this.#connection = null;
    if (c && this.opts.closeSessionOnShutdown) await this.#closeSession(c);
    await c?.close().catch(() => {});
    await this.#loop;
  }

  // ---- hooks ------------------------------------------------------------------------------

  /** Handles fetched data for a partition; returns the next fetch offset. */
  protected abstract processPartitionData(state: PartitionFetchState, data: FetchablePartitionResponse): number;
  /** OFFSET_OUT_OF_RANGE: returns the offset to continue from. */
  protected abstract handleOffsetOutOfRange(state: PartitionFetchState, connection: Connection): Promise<number>;
  /** Partitions that need truncation first (followers); returns the offset to fetch from per partition. */
  protected async truncate(states: PartitionFetchState[], _connection: Connection): Promise<Map<string, number>> {
    return new Map(states.map((s) => [key(s.topic, s.partition), s.fetchOffset]));
  }
  /** The log_start_offset a Fetch carries for a partition (followers: their own; consumers: -1). */
  protected fetchLogStartOffset(_state: PartitionFetchState): number {
    return -1;
  }
  /** Partitions the source cannot serve (not leader, unknown): they leave this fetcher. */
  protected abstract handlePartitionsWithErrors(states: PartitionFetchState[], errorCode: number): void;
  /** The source answered a fetch (an incremental answer may list no partition at all). */
  protected onFetchResponse(): void {}
  /**
   * A fetch round failed (network, timeout, a top-level error, or a hook threw): the connection is
   * closed and the loop backs off before the next round. Consumers refresh metadata or report the
   * error here; an error thrown by the hook is logged and does not stop the loop.
   */
  protected onFetchFailed(_error: unknown, _failures: number): void | Promise<void> {}

  /** Closes the fetch session (epoch -1, no partitions), as a consumer does when it stops; failures are ignored. */
  async #closeSession(c: Connection): Promise<void> {
    const sessionId = this.#session.sessionId;
    if (sessionId === INVALID_SESSION_ID || c.isClosed) return;
    await c
      .send(
        Fetch,
        { replicaId: this.opts.replicaId, maxWaitMs: 0, minBytes: 0, maxBytes: 0, isolationLevel: 0, sessionId, sessionEpoch: -1, topics: [], forgottenTopicsData: [], rackId: '' },
        { timeoutMs: 2000 + this.opts.maxWaitMs },
      )
      .catch(() => undefined);
  }

  // ---- loop -------------------------------------------------------------------------------

  async #connect(): Promise<Connection> {
    if (this.#connection && !this.#connection.isClosed) return this.#connection;
    const c = this.opts.connect?.(this.opts.source) ?? new Connection({
      host: this.opts.source.host,
      port: this.opts.source.port,
      clientId: this.opts.clientId,
      requestTimeoutMs: this.opts.requestTimeoutMs,
      connectTimeoutMs: Math.min(this.opts.requestTimeoutMs, 10_000),
      ...(this.opts.security ? { security: this.opts.security } : {}),
      ...(this.opts.responseBuffers ? { frameBuffers: this.opts.responseBuffers } : {}),
      logger: this.log,
    });
    this.#connection = c;
    await c.connect();
    return c;
  }

  async #idle(ms: number): Promise<void> {
    await new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      this.#wake = done;
      function done() {
        clearTimeout(timer);
        resolve();
      }
    });
    this.#wake = null;
  }

  async #run(): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      if (this.#partitions.size === 0) {
        await this.#idle(this.opts.backoffMs);
        continue;
      }
      try {
        const connection = await this.#connect();
        if (signal.aborted) break;
        const toTruncate = [...this.#partitions.values()].filter((p) => p.truncating);
        if (toTruncate.length > 0) {
          const offsets = await this.truncate(toTruncate, connection);
          for (const s of toTruncate) {
            const current = this.#partitions.get(key(s.topic, s.partition));
            const next = offsets.get(key(s.topic, s.partition));
            // Only if nobody re-added the partition meanwhile.
            if (current && current.truncating && current.currentLeaderEpoch === s.currentLeaderEpoch && next !== undefined) {
              current.fetchOffset = next;
              current.truncating = false;
            }
          }
        }
        await this.#fetchOnce(connection);
        this.#failures = 0;
      } catch (err) {
        if (signal.aborted) break;
        this.#failures++;
        this.log.warn({ source: this.opts.source.brokerId, err: (err as Error).message, failures: this.#failures }, 'fetch failed');
        const c = this.#connection;
        this.#connection = null;
        await c?.close().catch(() => {});
        try {
          await this.onFetchFailed(err, this.#failures);
        } catch (hookError) {
          this.log.warn({ err: (hookError as Error).message }, 'onFetchFailed failed');
        }
        if (signal.aborted) break;
        await sleep(backoffMs(this.#failures - 1, this.opts.backoffMs, 5 * this.opts.backoffMs), signal);
      }
    }
  }

  async #fetchOnce(connection: Connection): Promise<void> {
    const fetching = [...this.#partitions.values()].filter((p) => !p.truncating);
    if (fetching.length === 0) return this.#idle(this.opts.backoffMs);
    const request = this.#session.build(
      fetching.map((p) => ({
        topic: p.topic,
        partition: p.partition,
        fetchOffset: p.fetchOffset,
        logStartOffset: this.fetchLogStartOffset(p),
        partitionMaxBytes: p.partitionMaxBytes ?? this.opts.partitionMaxBytes,
        currentLeaderEpoch: p.currentLeaderEpoch,
      })),
    );
    const sentOffsets = new Map(fetching.map((p) => [key(p.topic, p.partition), p.fetchOffset]));
    let response;
    try {
      response = await connection.send(
        Fetch,
        {
          replicaId: this.opts.replicaId,
          maxWaitMs: this.opts.maxWaitMs,
          minBytes: this.opts.minBytes,
          maxBytes: this.opts.maxBytes,
          isolationLevel: 0,
          sessionId: request.sessionId,
          sessionEpoch: request.epoch,
          topics: [...byTopic(request.toSend)].map(([topic, parts]) => ({
            topic,
            partitions: parts.map((p) => ({
              partition: p.partition,
              currentLeaderEpoch: p.currentLeaderEpoch,
              fetchOffset: p.fetchOffset,
              logStartOffset: p.logStartOffset,
              partitionMaxBytes: p.partitionMaxBytes,
            })),
          })),
          forgottenTopicsData: [...byTopic(request.toForget)].map(([topic, parts]) => ({ topic, partitions: parts.map((p) => p.partition) })),
          rackId: '',
        },
        { timeoutMs: this.opts.requestTimeoutMs + this.opts.maxWaitMs },
      );
    } catch (err) {
      this.#session.handleError();
      throw err;
    }
    try {
      await this.#processResponse(response, sentOffsets, connection);
    } finally {
      // Every record set is a view of the response's frame: giving back one gives back the frame.
      const pool = this.opts.responseBuffers;
      if (pool) for (const t of response.responses) for (const data of t.partitionResponses) if (data.recordSet) pool.release(data.recordSet);
    }
  }

  async #processResponse(response: FetchResponse, sentOffsets: Map<string, number>, connection: Connection): Promise<void> {
    this.onFetchResponse();
    const usable = this.#session.handleResponse(response);
    const errorCode = response.errorCode ?? ErrorCode.NONE;
    // A session error (evicted, or the broker restarted): the next request is a full fetch, sent at once.
    if (errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND || errorCode === ErrorCode.INVALID_FETCH_SESSION_EPOCH) return;
    if (errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(errorCode, `fetch from broker ${this.opts.source.brokerId} failed: ${errorName(errorCode)}`);
    if (!usable) return; // partitions that do not match the session: dropped, and the next request is full
    const failed = new Map<number, PartitionFetchState[]>();
    for (const t of response.responses) {
      for (const data of t.partitionResponses) {
        const k = key(t.topic, data.partition);
        const state = this.#partitions.get(k);
        // The partition may have been removed or moved while the fetch was in flight.
        if (!state || state.truncating || state.fetchOffset !== sentOffsets.get(k)) continue;
        switch (data.errorCode) {
          case ErrorCode.NONE:
            state.fetchOffset = this.processPartitionData(state, data);
            break;
          case ErrorCode.OFFSET_OUT_OF_RANGE:
            state.fetchOffset = await this.handleOffsetOutOfRange(state, connection);
            break;
          default: {
            let list = failed.get(data.errorCode);
            if (!list) failed.set(data.errorCode, (list = []));
            list.push(state);
          }
        }
      }
    }
    for (const [code, states] of failed) {
      this.removePartitions(states);
      this.handlePartitionsWithErrors(states, code);
    }
  }
}
