import { CorruptDataError, ErrorCode, KafkaProtocolError } from '@gregor/common';
import { decompressionCap, Fetch, decodeRecordSetPrefixWith, type FetchResponse } from '@gregor/protocol';
import { consumedRecordFactory, type ConsumedRecord } from './consumed-record.js';
import type { KafkaClient } from './cluster.js';
import { requireNonNegativeInt } from './config.js';
import { ConsumeRun, type ConsumedPartition } from './consume-run.js';
import { ConsumeIterator } from './consume-iterator.js';
import { byTopic, FetchSessionHandler, INVALID_SESSION_ID } from '@gregor/net';
import { EARLIEST_TIMESTAMP, LATEST_TIMESTAMP, listOffsets } from './offsets.js';

export type { ConsumedRecord } from './consumed-record.js';

/** Fetch settings, named after Kafka's consumer configs. */
export interface FetchConfig {
  /** `fetch.max.wait.ms`: how long the broker may hold a fetch waiting for minBytes. Default 500. */
  maxWaitMs?: number;
  /** `fetch.min.bytes`. Default 1. */
  minBytes?: number;
  /** `fetch.max.bytes`: soft cap on one response. Default 52428800. */
  maxBytes?: number;
  /** `max.partition.fetch.bytes`: soft cap per partition. Default 1048576. */
  maxPartitionFetchBytes?: number;
  /**
   * The most one compressed batch may inflate to; a batch past it fails the fetch with CORRUPT_MESSAGE
   * (a decompression bomb never inflates). Default the larger of maxBytes and 52428800.
   */
  maxDecompressedBytes?: number;
}

interface FetchSettings {
  maxWaitMs: number;
  minBytes: number;
  maxBytes: number;
  maxPartitionFetchBytes: number;
  maxDecompressedBytes: number;
}

function fetchSettings(config: FetchConfig): FetchSettings {
  const maxBytes = requireNonNegativeInt('maxBytes', config.maxBytes, 52_428_800);
  return {
    maxWaitMs: requireNonNegativeInt('maxWaitMs', config.maxWaitMs, 500),
    minBytes: requireNonNegativeInt('minBytes', config.minBytes, 1),
    maxBytes,
    maxPartitionFetchBytes: requireNonNegativeInt('maxPartitionFetchBytes', config.maxPartitionFetchBytes, 1_048_576),
    maxDecompressedBytes: requireNonNegativeInt('maxDecompressedBytes', config.maxDecompressedBytes, decompressionCap(maxBytes)),
  };
}

export interface PartitionFetch {
  partition: number;
  fetchOffset: number;
  partitionMaxBytes: number;
}

export interface PartitionFetchResult {
  partition: number;
  errorCode: number;
  highWatermark: number;
  logStartOffset: number;
  /** Records at or after fetchOffset, from the complete batches of the response. */
  records: ConsumedRecord[];
  /** Where the next fetch starts: after the last complete batch, or fetchOffset when none came. */
  nextOffset: number;
  /** Bytes of the record set (a non-zero size with no complete batch means the batch is larger than partitionMaxBytes). */
  recordBytes: number;
}

/**
 * One Fetch request to one broker for several partitions of a topic; errors stay per partition.
 * With a fetch session (KIP-227) only partitions whose position changed are sent, and partitions the
 * broker leaves out of an incremental answer come back with no records and no error (HW -1: unchanged).
 * A session error or a mismatched answer also comes back as "no records" for every partition, and the
 * session's next request is a full one.
 */
export async function fetchFromBroker(
  client: KafkaClient,
  nodeId: number,
  topic: string,
  partitions: readonly PartitionFetch[],
  config: FetchConfig = {},
  session?: FetchSessionHandler,
): Promise<PartitionFetchResult[]> {
  const s = fetchSettings(config);
  const wanted = partitions.map((p) => ({ topic, partition: p.partition, fetchOffset: p.fetchOffset, logStartOffset: -1, partitionMaxBytes: p.partitionMaxBytes, currentLeaderEpoch: -1 }));
  const request = session?.build(wanted) ?? { sessionId: INVALID_SESSION_ID, epoch: -1, isFull: true, toSend: wanted, toForget: [] };
  let response: FetchResponse;
  try {
    response = await client.sendTo(
      nodeId,
      Fetch,
      {
        replicaId: -1,
        maxWaitMs: s.maxWaitMs,
        minBytes: s.minBytes,
        maxBytes: s.maxBytes,
        isolationLevel: 0,
        sessionId: request.sessionId,
        sessionEpoch: request.epoch,
        topics: [...byTopic(request.toSend)].map(([t, parts]) => ({
          topic: t,
          partitions: parts.map((p) => ({
            partition: p.partition,
            currentLeaderEpoch: -1,
            fetchOffset: p.fetchOffset,
            logStartOffset: -1,
            partitionMaxBytes: p.partitionMaxBytes,
          })),
        })),
        forgottenTopicsData: [...byTopic(request.toForget)].map(([t, parts]) => ({ topic: t, partitions: parts.map((p) => p.partition) })),
        rackId: '',
      },
      { timeoutMs: client.requestTimeoutMs + s.maxWaitMs },
    );
  } catch (error) {
    session?.handleError();
    throw error;
  }
  const usable = session ? session.handleResponse(response) : true;
  const errorCode = response.errorCode ?? ErrorCode.NONE;
  const nothing = (p: PartitionFetch): PartitionFetchResult => ({
    partition: p.partition,
    errorCode: ErrorCode.NONE,
    highWatermark: -1,
    logStartOffset: -1,
    records: [],
    nextOffset: p.fetchOffset,
    recordBytes: 0,
  });
  if (errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND || errorCode === ErrorCode.INVALID_FETCH_SESSION_EPOCH) return partitions.map(nothing);
  if (errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(errorCode, `Fetch from broker ${nodeId} failed`);
  if (!usable) return partitions.map(nothing);
  const answered = response.responses.filter((t) => t.topic === topic).flatMap((t) => t.partitionResponses);
  return partitions.map((p) => {
    const data = answered.find((x) => x.partition === p.partition);
    if (!data) {
      if (!request.isFull) return nothing(p); // implied: nothing new for it
      return { partition: p.partition, errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, highWatermark: -1, logStartOffset: -1, records: [], nextOffset: p.fetchOffset, recordBytes: 0 };
    }
    const result: PartitionFetchResult = {
      partition: p.partition,
      errorCode: data.errorCode,
      highWatermark: data.highWatermark,
      logStartOffset: data.logStartOffset ?? -1,
      records: [],
      nextOffset: p.fetchOffset,
      recordBytes: data.recordSet?.length ?? 0,
    };
    if (data.errorCode !== ErrorCode.NONE || !data.recordSet || data.recordSet.length === 0) return result;
    // Records before a batch that cannot be decoded are handed out; the fetch fails once that batch is first.
    const { batches, error } = decodeRecordSetPrefixWith(data.recordSet, { maxDecompressedBytes: s.maxDecompressedBytes }, consumedRecordFactory(topic, p.partition));
    if (error && batches.length === 0) throw new CorruptDataError(`fetch ${topic}-${p.partition} at offset ${p.fetchOffset}: ${error.message}`, { cause: error });
    for (const batch of batches) {
      result.nextOffset = Math.max(result.nextOffset, batch.lastOffset + 1);
      if (batch.isControl) continue; // transaction markers are not application records
      for (const r of batch.records) {
        if (r.offset < p.fetchOffset) continue; // a batch may start before the offset asked for
        result.records.push(r);
      }
    }
    return result;
  });
}

/** Closes a fetch session (epoch -1, no partitions), as a consumer does when it stops; failures are ignored. */
export async function closeFetchSession(client: KafkaClient, session: FetchSessionHandler): Promise<void> {
  if (session.sessionId === INVALID_SESSION_ID) return;
  await client
    .sendTo(
      session.node,
      Fetch,
      { replicaId: -1, maxWaitMs: 0, minBytes: 0, maxBytes: 0, isolationLevel: 0, sessionId: session.sessionId, sessionEpoch: -1, topics: [], forgottenTopicsData: [], rackId: '' },
      { timeoutMs: 2000 },
    )
    .catch(() => undefined);
}

/** Fetches one partition from its leader, throwing its error code if it has one. */
export async function fetchPartition(
  client: KafkaClient,
  options: { topic: string; partition: number; offset: number } & FetchConfig,
): Promise<PartitionFetchResult> {
  const leader = await client.leaderFor(options.topic, options.partition);
  const partitionMaxBytes = options.maxPartitionFetchBytes ?? 1_048_576;
  const [result] = await fetchFromBroker(client, leader, options.topic, [{ partition: options.partition, fetchOffset: options.offset, partitionMaxBytes }], options);
  if (result!.errorCode !== ErrorCode.NONE) {
    throw new KafkaProtocolError(result!.errorCode, `fetch ${options.topic}-${options.partition} at offset ${options.offset} failed`);
  }
  return result!;
}

/** Where to start: a named position, an offset, or the first offset with a timestamp ≥ the one given. */
export type StartOffset = 'earliest' | 'latest' | number | { timestamp: number };

export interface ConsumeOptions {
  topic: string;
  /** Default: every partition of the topic. */
  partitions?: readonly number[];
  /** Default 'earliest'. */
  from?: StartOffset;
  /** Stop once every partition reaches the high watermark it had when consuming started. */
  untilEnd?: boolean;
  signal?: AbortSignal;
}

export interface ConsumerConfig extends FetchConfig {
  /** Incremental fetch sessions (KIP-227) with each leader. Default true. */
  fetchSessions?: boolean;
  /** Consecutive failed rounds tolerated before giving up. Default 10. */
  retries?: number;
  retryBackoffMs?: number;
  retryBackoffMaxMs?: number;
}

/**
 * A group-less consumer: reads chosen partitions of a topic from a starting position, following
 * leader changes, as an async iterator. Breaking out of the loop stops it.
 */
export class Consumer {
  readonly #client: KafkaClient;
  readonly #settings: FetchSettings;
  readonly #retries: number;
  readonly #retryBackoffMs: number;
  readonly #retryBackoffMaxMs: number;
  readonly #fetchSessions: boolean;

  constructor(client: KafkaClient, config: ConsumerConfig = {}) {
    this.#client = client;
    this.#settings = fetchSettings(config);
    this.#retries = requireNonNegativeInt('retries', config.retries, 10);
    this.#retryBackoffMs = requireNonNegativeInt('retryBackoffMs', config.retryBackoffMs, 100);
    this.#retryBackoffMaxMs = requireNonNegativeInt('retryBackoffMaxMs', config.retryBackoffMaxMs, 1000);
    this.#fetchSessions = config.fetchSessions ?? true;
  }

  /** The records of the topic's partitions from `from`, for `for await` (see ConsumeIterator). */
  consume(options: ConsumeOptions): AsyncIterableIterator<ConsumedRecord> {
    // The shared fetch loop: one fetcher (and fetch session) per leader, stopped when consuming stops.
    const start = async () =>
      new ConsumeRun(this.#client, options.topic, await this.#start(options), {
        ...this.#settings,
        fetchSessions: this.#fetchSessions,
        retries: this.#retries,
        retryBackoffMs: this.#retryBackoffMs,
        retryBackoffMaxMs: this.#retryBackoffMaxMs,
      });
    return new ConsumeIterator(start, options.signal);
  }

  async #start(options: ConsumeOptions): Promise<Map<number, ConsumedPartition>> {
    const { topic } = options;
    await this.#client.ensureTopics([topic]);
    const metadata = this.#client.topic(topic);
    if (!metadata) throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `topic ${topic} does not exist`);
    const known = new Set(metadata.partitions.map((p) => p.partition));
    const partitions = options.partitions ?? [...known];
    for (const p of partitions) {
      if (!known.has(p)) throw new KafkaProtocolError(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, `topic ${topic} has no partition ${p}`);
    }
    const from = options.from ?? 'earliest';
    const starts = new Map<number, number>();
    if (typeof from === 'number') {
      for (const p of partitions) starts.set(p, from);
    } else {
      const timestamp = from === 'earliest' ? EARLIEST_TIMESTAMP : from === 'latest' ? LATEST_TIMESTAMP : from.timestamp;
      const found = await listOffsets(this.#client, topic, partitions.map((partition) => ({ partition, timestamp })));
      for (const p of partitions) starts.set(p, found.get(p)!.offset);
    }
    const ends = options.untilEnd
      ? await listOffsets(this.#client, topic, partitions.map((partition) => ({ partition, timestamp: LATEST_TIMESTAMP })))
      : undefined;
    const active = new Map<number, ConsumedPartition>();
    for (const partition of partitions) {
      const end = ends ? ends.get(partition)!.offset : Number.POSITIVE_INFINITY;
      // No record at or after the timestamp asked for: start at the end of the log.
      let position = starts.get(partition)!;
      if (position < 0) position = end === Number.POSITIVE_INFINITY ? (await listOffsets(this.#client, topic, [{ partition, timestamp: LATEST_TIMESTAMP }])).get(partition)!.offset : end;
      if (position < end) active.set(partition, { partition, position, end, partitionMaxBytes: this.#settings.maxPartitionFetchBytes });
    }
    return active;
  }
}
