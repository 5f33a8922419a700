import { ErrorCode, GregorError, KafkaProtocolError, TimeoutError, backoffMs, silentLogger, sleep, whenAborted, withTimeout, type Logger } from '@gregor/common';
import { decompressionCap } from '@gregor/protocol';
import { KafkaClient } from './cluster.js';
import { requireNonNegativeInt, type ClientConfig } from './config.js';
import type { ConsumedRecord, FetchConfig } from './fetcher.js';
import { GroupMembership, type Generation } from './group-membership.js';
import { KafkaOffsetStore } from './kafka-offset-store.js';
import { MessageQueue } from './message-queue.js';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, listOffsets } from './offsets.js';
import { ReaderPartitionFetch, type ReaderPartitionSettings } from './reader-partition-fetch.js';
import { ClientClosedError } from '@gregor/net';

/** A message handed out by the Reader (kafka-go's Message). */
export interface Message extends ConsumedRecord {
  /** The group generation it was fetched in. */
  generationId: number;
}

/** kafka-go's ReaderConfig, camelCased, for group readers. */
export interface ReaderConfig extends FetchConfig, Omit<ClientConfig, 'logger'> {
  groupId: string;
  /** One topic, or `groupTopics` for several. */
  topic?: string;
  groupTopics?: string[];
  /** Default 30000 (kafka-go SessionTimeout). */
  sessionTimeoutMs?: number;
  /** Default 30000. */
  rebalanceTimeoutMs?: number;
  /** Default 3000. */
  heartbeatIntervalMs?: number;
  /** 0 (default): commitMessages commits at once; > 0: commits are merged per partition and flushed on this interval. */
  commitIntervalMs?: number;
  /** Where a partition without a committed offset starts. Default 'earliest' (kafka-go FirstOffset). */
  startOffset?: 'earliest' | 'latest';
  /** Assignor names offered in JoinGroup, in preference order. Default ['range', 'roundrobin']; 'RoundRobinAssigner' is kafkajs's name. */
  groupBalancers?: string[];
  /** Messages buffered ahead of fetchMessage(). Default 100. */
  queueCapacity?: number;
  /** Wait after a failed join before trying again. Default 1000 (kafka-go: 5000). */
  joinGroupBackoffMs?: number;
  logger?: Logger;
}

export interface ReaderStats {
  generations: number;
  rebalances: number;
  fetched: number;
  commits: number;
}

/** Kafka's KafkaConsumer DEFAULT_CLOSE_TIMEOUT_MS. */
const DEFAULT_CLOSE_TIMEOUT_MS = 30_000;

function tpKey(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/** The live state of one generation: its fetch loops stop when `abort` fires. */
interface ActiveGeneration {
  gen: Generation;
  abort: AbortController;
  end: (reason: string) => void;
  ended: Promise<string>;
}

/**
 * A consumer group reader with kafka-go's semantics: `fetchMessage()` hands out the next message without
 * committing, `commitMessages()` commits (at once, or merged per partition on `commitIntervalMs`),
 * `readMessage()` does both. Each assigned partition has its own fetch loop feeding one bounded queue;
 * heartbeats run on their own timer; a rebalance stops the loops, flushes commits, rejoins and resumes with
 * the new assignment; `close()` leaves the group.
 */
export class Reader {
  readonly #config: ReaderConfig;
  readonly #client: KafkaClient;
  readonly #membership: GroupMembership;
  readonly #offsets: KafkaOffsetStore;
  readonly #queue: MessageQueue<Message>;
  readonly #log: Logger;
  readonly #topics: string[];
  readonly #sessionTimeoutMs: number;
  readonly #rebalanceTimeoutMs: number;
  readonly #heartbeatIntervalMs: number;
  readonly #commitIntervalMs: number;
  readonly #joinBackoffMs: number;
  readonly #fetchSettings: ReaderPartitionSettings;
  readonly #stop = new AbortController();
  /** Highest offset+1 per partition waiting for the commit timer. */
  readonly #pending = new Map<string, { topic: string; partition: number; offset: number; generationId: number }>();
  #active: ActiveGeneration | null = null;
  #run: Promise<void> | null = null;
  #closed: Promise<void> | null = null;
  readonly stats: ReaderStats = { generations: 0, rebalances: 0, fetched: 0, commits: 0 };

  constructor(config: ReaderConfig) {
    this.#config = config;
    this.#topics = config.groupTopics ?? (config.topic ? [config.topic] : []);
    if (this.#topics.length === 0) throw new Error('Reader needs topic or groupTopics');
    if (!config.groupId) throw new Error('Reader needs a groupId');
    this.#log = config.logger ?? silentLogger();
    this.#sessionTimeoutMs = requireNonNegativeInt('sessionTimeoutMs', config.sessionTimeoutMs, 30000);
    this.#rebalanceTimeoutMs = requireNonNegativeInt('rebalanceTimeoutMs', config.rebalanceTimeoutMs, 30000);
    this.#heartbeatIntervalMs = requireNonNegativeInt('heartbeatIntervalMs', config.heartbeatIntervalMs, 3000);
    this.#commitIntervalMs = requireNonNegativeInt('commitIntervalMs', config.commitIntervalMs, 0);
    this.#joinBackoffMs = requireNonNegativeInt('joinGroupBackoffMs', config.joinGroupBackoffMs, 1000);
    this.#client = new KafkaClient({ ...config, logger: this.#log });
    this.#membership = new GroupMembership(this.#client, {
      groupId: config.groupId,
      topics: this.#topics,
      sessionTimeoutMs: this.#sessionTimeoutMs,
      rebalanceTimeoutMs: this.#rebalanceTimeoutMs,
      balancers: config.groupBalancers ?? ['range', 'roundrobin'],
      logger: this.#log,
    });
    this.#offsets = new KafkaOffsetStore(this.#client, config.groupId);
    this.#queue = new MessageQueue(config.queueCapacity ?? 100);
    const maxBytes = requireNonNegativeInt('maxBytes', config.maxBytes, 52_428_800);
    this.#fetchSettings = {
      maxWaitMs: requireNonNegativeInt('maxWaitMs', config.maxWaitMs, 500),
      minBytes: requireNonNegativeInt('minBytes', config.minBytes, 1),
      maxBytes,
      maxPartitionFetchBytes: requireNonNegativeInt('maxPartitionFetchBytes', config.maxPartitionFetchBytes, 1_048_576),
      maxDecompressedBytes: requireNonNegativeInt('maxDecompressedBytes', config.maxDecompressedBytes, decompressionCap(maxBytes)),
    };
  }

  /** Partitions assigned in the current generation (empty while rebalancing). */
  assignment(): { topic: string; partition: number }[] {
    const gen = this.#active?.gen;
    if (!gen) return [];
    return [...gen.assignment].flatMap(([topic, ps]) => ps.map((partition) => ({ topic, partition })));
  }

  get generationId(): number {
    return this.#active?.gen.generationId ?? -1;
  }

  /** The next message; does not commit. Joins the group on first use. */
  fetchMessage(signal?: AbortSignal): Promise<Message> {
    if (this.#closed) return Promise.reject(new ClientClosedError('the reader is closed'));
    this.#run ??= this.#loop();
    return this.#queue.take(signal);
  }

  /** fetchMessage + commitMessages. */
  async readMessage(signal?: AbortSignal): Promise<Message> {
    const m = await this.fetchMessage(signal);
    await this.commitMessages(m);
    return m;
  }

  /**
   * Commits offset+1 of each message (the highest per partition). With commitIntervalMs > 0 only queues them.
   * Only messages of the current generation can be committed (after a rebalance their partition may belong to
   * another member, which starts from the last commit): with commitIntervalMs 0 older ones throw ILLEGAL_GENERATION.
   */
  async commitMessages(...messages: Message[]): Promise<void> {
    const current = this.#active?.gen.generationId;
    let stale = 0;
    for (const m of messages) {
      if (m.generationId !== current) {
        stale++;
        continue;
      }
      const k = tpKey(m.topic, m.partition);
      const prev = this.#pending.get(k);
      if (!prev || prev.offset < m.offset + 1) this.#pending.set(k, { topic: m.topic, partition: m.partition, offset: m.offset + 1, generationId: m.generationId });
    }
    if (this.#commitIntervalMs === 0) {
      await this.#flush();
      if (stale > 0) throw new KafkaProtocolError(ErrorCode.ILLEGAL_GENERATION, `${stale} message(s) were fetched in an earlier generation and cannot be committed`);
    }
  }

  /** Commits what is pending for the current generation; entries of an ended generation are dropped. */
  async #flush(): Promise<void> {
    if (this.#pending.size === 0) return;
    const active = this.#active;
    const batch = [...this.#pending.values()].filter((o) => active && o.generationId === active.gen.generationId);
    const dropped = this.#pending.size - batch.length;
    if (dropped > 0) this.#log.debug({ dropped }, 'dropping commits of an ended generation');
    this.#pending.clear();
    if (!active || batch.length === 0) return;
    try {
      await this.#offsets.commit(batch, { generationId: active.gen.generationId, memberId: active.gen.memberId });
      this.stats.commits++;
    } catch (error) {
      // Keep them for the next flush of this generation unless a newer commit superseded them.
      for (const o of batch) {
        const k = tpKey(o.topic, o.partition);
        const cur = this.#pending.get(k);
        if (!cur || cur.offset < o.offset) this.#pending.set(k, o);
      }
      if (error instanceof GregorError && (error.code === ErrorCode.REBALANCE_IN_PROGRESS || error.code === ErrorCode.ILLEGAL_GENERATION || error.code === ErrorCode.UNKNOWN_MEMBER_ID)) {
        active.end(`commit answered ${error.code}`);
      }
      throw error;
    }
  }

  async #loop(): Promise<void> {
    let failures = 0;
    while (!this.#stop.signal.aborted) {
      let gen: Generation;
      try {
        gen = await this.#membership.join(this.#stop.signal);
        failures = 0;
      } catch (error) {
        if (this.#stop.signal.aborted) break;
        this.#log.warn({ group: this.#config.groupId, err: (error as Error).message }, 'join failed; backing off');
        await sleep(Math.min(this.#joinBackoffMs, backoffMs(failures++, 100, this.#joinBackoffMs)), this.#stop.signal);
        continue;
      }
      // close() may have come while JoinGroup/SyncGroup were in flight (they wait for the whole group): do not
      // start fetching for a generation nobody will end; close() leaves the group instead.
      if (this.#stop.signal.aborted) break;
      await this.#runGeneration(gen);
    }
  }

  async #runGeneration(gen: Generation): Promise<void> {
    this.stats.generations++;
    let end!: (reason: string) => void;
    const ended = new Promise<string>((resolve) => (end = resolve));
    const abort = new AbortController();
    const active: ActiveGeneration = { gen, abort, end: (r) => end(r), ended };
    const stopWatching = whenAborted(this.#stop.signal, () => end('closing'));
    this.#active = active;

    const heartbeats = this.#heartbeatLoop(active);
    const commitTimer = this.#commitIntervalMs > 0 ? setInterval(() => void this.#flush().catch((e) => this.#log.warn({ err: e.message }, 'commit failed')), this.#commitIntervalMs) : undefined;
    commitTimer?.unref();
    const loops: Promise<void>[] = [];
    try {
      const starts = await this.#startOffsets(gen);
      for (const start of starts.values()) loops.push(this.#fetchLoop(start.topic, start.partition, start.offset, active));
    } catch (error) {
      this.#log.warn({ err: (error as Error).message }, 'reading committed offsets failed; rejoining');
      end('offset fetch failed');
    }
    const reason = await ended;
    this.stats.rebalances += reason === 'closing' ? 0 : 1;
    this.#log.info({ group: this.#config.groupId, generation: gen.generationId, reason }, 'generation ended');
    abort.abort();
    clearInterval(commitTimer);
    stopWatching();
    await Promise.allSettled([...loops, heartbeats]);
    // Flush merged commits while this generation is still accepted (PreparingRebalance allows them).
    await this.#flush().catch((e) => this.#log.warn({ err: (e as Error).message }, 'final commit of the generation failed'));
    this.#active = null;
    this.#queue.clear();
  }

  async #heartbeatLoop(active: ActiveGeneration): Promise<void> {
    const signal = active.abort.signal;
    while (!signal.aborted) {
      await sleep(this.#heartbeatIntervalMs, signal);
      if (signal.aborted) return;
      const code = await this.#membership.heartbeat(active.gen);
      if (code !== ErrorCode.NONE) {
        active.end(code === ErrorCode.REBALANCE_IN_PROGRESS ? 'rebalance' : `heartbeat error ${code}`);
        return;
      }
    }
  }

  /** Committed offsets of the assignment; partitions with none start at startOffset. */
  async #startOffsets(gen: Generation): Promise<Map<string, { topic: string; partition: number; offset: number }>> {
    const tps = [...gen.assignment].flatMap(([topic, ps]) => ps.map((partition) => ({ topic, partition })));
    const out = new Map<string, { topic: string; partition: number; offset: number }>();
    if (tps.length === 0) return out;
    const committed = await this.#offsets.fetch(tps);
    for (const tp of tps) {
      const c = committed.get(tpKey(tp.topic, tp.partition));
      out.set(tpKey(tp.topic, tp.partition), { ...tp, offset: c && c.offset >= 0 ? c.offset : -1 });
    }
    return out;
  }

  async #resetOffset(topic: string, partition: number): Promise<number> {
    const timestamp = (this.#config.startOffset ?? 'earliest') === 'earliest' ? EARLIEST_TIMESTAMP : LATEST_TIMESTAMP;
    return (await listOffsets(this.#client, topic, [{ partition, timestamp }])).get(partition)!.offset;
  }

  /**
   * One partition's loop on the shared fetch loop (AbstractFetcherThread against its leader, on its own
   * connection): queue the records, waiting when the queue is full.
   */
  async #fetchLoop(topic: string, partition: number, start: number, active: ActiveGeneration): Promise<void> {
    const fetch = new ReaderPartitionFetch(
      this.#client,
      topic,
      partition,
      start,
      this.#fetchSettings,
      {
        deliver: async (records, signal) => {
          const generationId = active.gen.generationId;
          const next = (): Message | undefined => {
            const m = records.next() as Message | undefined;
            if (m === undefined) return undefined;
            m.generationId = generationId;
            this.stats.fetched++;
            return m;
          };
          return this.#queue.pushFrom(next, signal);
        },
        corrupt: (error) => this.#queue.fail(error),
        resetOffset: () => this.#resetOffset(topic, partition),
      },
      this.#log,
    );
    await fetch.run(active.abort.signal);
  }

  /**
   * Stops fetching, flushes commits, leaves the group and closes connections. Idempotent. As Kafka's
   * `close(timeout)`: when the flush and the LeaveGroup have not finished within `timeoutMs` (default 30000; a
   * coordinator that stopped answering would otherwise hold close() for a request timeout per step), the reader
   * logs what it gave up and closes its connections anyway, which ends the requests still waiting.
   */
  close(options: { timeoutMs?: number } = {}): Promise<void> {
    const timeoutMs = requireNonNegativeInt('timeoutMs', options.timeoutMs, DEFAULT_CLOSE_TIMEOUT_MS);
    this.#closed ??= (async () => {
      this.#stop.abort();
      const graceful = (async () => {
        await this.#run;
        await this.#flush().catch(() => undefined);
        await this.#membership.leave();
      })().then(() => true, () => true);
      const finished = await withTimeout(graceful, timeoutMs, () => new TimeoutError('close() timed out')).catch(() => false);
      if (!finished) {
        this.#log.warn({ group: this.#config.groupId, timeoutMs }, 'close() timed out: pending commits not flushed, the group not left; closing connections');
      }
      this.#queue.fail(new ClientClosedError('the reader is closed'));
      await this.#client.close();
    })();
    return this.#closed;
  }
}
