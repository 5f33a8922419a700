import { ErrorCode, errorName, silentLogger, type Logger } from '@gregor/common';
import type { FetchResponse } from '@gregor/protocol';

/** KIP-227 values (Kafka's FetchMetadata). */
export const INVALID_SESSION_ID = 0;
export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;

function nextEpoch(epoch: number): number {
  if (epoch < 0) return FINAL_EPOCH;
  if (epoch === 2_147_483_647) return 1;
  return epoch + 1;
}

/** What one partition asks of the broker; a change of any field is sent in the next incremental request. */
export interface SessionPartition {
  topic: string;
  partition: number;
  fetchOffset: number;
  /** The fetcher's own log start offset (followers), else -1. */
  logStartOffset: number;
  partitionMaxBytes: number;
  currentLeaderEpoch: number;
}

/** One Fetch request's partitions and session fields. */
export interface FetchRequestData {
  sessionId: number;
  epoch: number;
  /** True for a full request (epoch 0 or -1): `toSend` lists every partition. */
  isFull: boolean;
  /** Partitions to list: all of them (full), or those added or altered since the last request (incremental). */
  toSend: SessionPartition[];
  /** Partitions to drop from the session (forgotten_topics_data). */
  toForget: { topic: string; partition: number }[];
  /** Every partition in the session after this request, in session order. */
  sessionPartitions: ReadonlyMap<string, SessionPartition>;
}

const key = (topic: string, partition: number) => `${topic}-${partition}`;

function samePartitionData(a: SessionPartition, b: SessionPartition): boolean {
  return a.fetchOffset === b.fetchOffset && a.logStartOffset === b.logStartOffset && a.partitionMaxBytes === b.partitionMaxBytes && a.currentLeaderEpoch === b.currentLeaderEpoch;
}

/**
 * The client side of a fetch session with one broker (Kafka's FetchSessionHandler, KIP-227). `build`
 * turns the partitions wanted next into a full request (which asks the broker for a session) or an
 * incremental one (only added and altered partitions, plus the ones to forget); `handleResponse` and
 * `handleError` decide what the next request is. A session error or a connection failure falls back to
 * a full fetch: FETCH_SESSION_ID_NOT_FOUND starts over with (0, 0), anything else closes the session
 * with (id, 0). Disabled (`enabled: false`), every request is sessionless (0, -1), as before KIP-227.
 */
export class FetchSessionHandler {
  readonly node: number;
  readonly enabled: boolean;
  readonly #log: Logger;
  #sessionId = INVALID_SESSION_ID;
  #epoch = INITIAL_EPOCH;
  #sessionPartitions = new Map<string, SessionPartition>();

  constructor(node: number, opts: { enabled?: boolean; logger?: Logger } = {}) {
    this.node = node;
    this.enabled = opts.enabled ?? true;
    this.#log = opts.logger ?? silentLogger();
    if (!this.enabled) this.#epoch = FINAL_EPOCH;
  }

  /** The session the next request continues (0 = none). */
  get sessionId(): number {
    return this.#sessionId;
  }

  /** The epoch the next request carries: 0 full (create a session), -1 sessionless, else incremental. */
  get epoch(): number {
    return this.#epoch;
  }

  get isFull(): boolean {
    return this.#epoch === INITIAL_EPOCH || this.#epoch === FINAL_EPOCH;
  }

  /** Builds the next request for `next` (the partitions wanted, in priority order). */
  build(next: readonly SessionPartition[]): FetchRequestData {
    const wanted = new Map<string, SessionPartition>();
    for (const p of next) wanted.set(key(p.topic, p.partition), p);
    if (this.isFull) {
      this.#sessionPartitions = wanted;
      return { sessionId: this.#sessionId, epoch: this.#epoch, isFull: true, toSend: [...wanted.values()], toForget: [], sessionPartitions: wanted };
    }
    const toForget: { topic: string; partition: number }[] = [];
    for (const [k, prev] of this.#sessionPartitions) {
      const data = wanted.get(k);
      if (!data) {
        this.#sessionPartitions.delete(k);
        toForget.push({ topic: prev.topic, partition: prev.partition });
        continue;
      }
      wanted.delete(k);
      if (!samePartitionData(prev, data)) {
        // Altered: sent again, after the added ones.
        wanted.set(k, data);
        this.#sessionPartitions.set(k, data);
      }
    }
    // What is left in `wanted`: new partitions first, then the altered ones re-added above.
    for (const [k, data] of wanted) {
      if (this.#sessionPartitions.has(k)) break;
      this.#sessionPartitions.set(k, data);
    }
    return { sessionId: this.#sessionId, epoch: this.#epoch, isFull: false, toSend: [...wanted.values()], toForget, sessionPartitions: this.#sessionPartitions };
  }

  /**
   * Takes the response to the last built request. False when its partitions must not be used (a session
   * error, or a response that does not match the session): the next request is then a full one.
   */
  handleResponse(response: Pick<FetchResponse, 'errorCode' | 'sessionId' | 'responses'>): boolean {
    if (!this.enabled) return true;
    const errorCode = response.errorCode ?? ErrorCode.NONE;
    const sessionId = response.sessionId ?? INVALID_SESSION_ID;
    if (errorCode !== ErrorCode.NONE) {
      this.#log.info({ node: this.node, sessionId: this.#sessionId, epoch: this.#epoch, error: errorName(errorCode) }, 'fetch session error; the next fetch is a full one');
      if (errorCode === ErrorCode.FETCH_SESSION_ID_NOT_FOUND) this.#initial();
      else this.#closeExisting();
      return false;
    }
    const answered = new Set<string>();
    for (const t of response.responses) for (const p of t.partitionResponses) answered.add(key(t.topic, p.partition));
    const extra = [...answered].filter((k) => !this.#sessionPartitions.has(k));
    if (this.isFull) {
      const omitted = [...this.#sessionPartitions.keys()].filter((k) => !answered.has(k));
      if (extra.length > 0 || omitted.length > 0) {
        this.#log.info({ node: this.node, extra: extra.slice(0, 5), omitted: omitted.slice(0, 5) }, 'invalid full fetch response');
        this.#initial();
        return false;
      }
      if (sessionId === INVALID_SESSION_ID) {
        this.#initial(); // no session (the broker's cache is full, or it predates KIP-227): ask again next time
      } else {
        this.#log.debug({ node: this.node, sessionId, partitions: this.#sessionPartitions.size }, 'fetch session created');
        this.#sessionId = sessionId;
        this.#epoch = nextEpoch(INITIAL_EPOCH);
      }
      return true;
    }
    if (extra.length > 0) {
      this.#log.info({ node: this.node, sessionId: this.#sessionId, extra: extra.slice(0, 5) }, 'invalid incremental fetch response');
      this.#closeExisting();
      return false;
    }
    if (sessionId === INVALID_SESSION_ID) {
      this.#initial(); // the broker closed the session
    } else {
      this.#epoch = nextEpoch(this.#epoch);
    }
    return true;
  }

  /** The request failed (connection lost, timeout): close the session with the next request and start a new one. */
  handleError(): void {
    if (this.enabled) this.#closeExisting();
  }

  #initial(): void {
    this.#sessionId = INVALID_SESSION_ID;
    this.#epoch = INITIAL_EPOCH;
  }

  #closeExisting(): void {
    this.#epoch = INITIAL_EPOCH; // (id, 0): the broker closes id and answers as a full fetch
  }
}

/** Groups partitions by topic (first appearance order) for a Fetch request's topic arrays. */
export function byTopic<T extends { topic: string }>(partitions: readonly T[]): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const p of partitions) {
    let list = out.get(p.topic);
    if (!list) out.set(p.topic, (list = []));
    list.push(p);
  }
  return out;
}
