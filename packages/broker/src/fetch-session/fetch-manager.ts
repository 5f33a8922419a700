import { ErrorCode, type Logger } from '@gregor/common';
import type { FetchPartitionData, FetchPartitionRequest } from '../cluster/replica-manager.js';
import { partitionKey } from '../cluster/partition.js';
import { CachedPartition, FINAL_EPOCH, INITIAL_EPOCH, INVALID_SESSION_ID, nextEpoch, type FetchSession } from './fetch-session.js';
import type { FetchSessionCache } from './fetch-session-cache.js';

export interface FetchSessionRequest {
  sessionId: number;
  epoch: number;
  /** The request's partitions, in request order. */
  partitions: readonly FetchPartitionRequest[];
  /** forgotten_topics_data, flattened. */
  forgotten: readonly { topic: string; partition: number }[];
  isFollower: boolean;
}

/** What the Fetch response carries at the top level and which partitions it lists. */
export interface FetchSessionResponse {
  errorCode: number;
  sessionId: number;
  partitions: FetchPartitionData[];
}

export type FetchContextKind = 'sessionless' | 'full' | 'incremental' | 'error';

/** How one Fetch request is served (Kafka's FetchContext). */
export interface FetchContext {
  readonly kind: FetchContextKind;
  /** The partitions to read: the request's own, or every partition of an incremental session. */
  readonly partitions: readonly FetchPartitionRequest[];
  /** Builds the response from the data read for `partitions` (same order). */
  respond(data: readonly FetchPartitionData[]): FetchSessionResponse;
}

/** Fetch requests served per kind, and session errors returned (gregor's counters; Kafka logs these at debug). */
export interface FetchSessionStats {
  sessionless: number;
  full: number;
  incremental: number;
  sessionIdNotFound: number;
  invalidEpoch: number;
}

/**
 * Turns each Fetch request's (session_id, epoch) into a context (Kafka's FetchManager, KIP-227):
 * (0,-1) sessionless; (0|X,0) full, closing X and trying to create a session; (X,-1) closes X,
 * sessionless; (X,e>0) incremental if X exists and e is its expected epoch, else a top-level
 * FETCH_SESSION_ID_NOT_FOUND / INVALID_FETCH_SESSION_EPOCH with no partitions.
 */
export class FetchManager {
  readonly cache: FetchSessionCache;
  readonly #log: Logger;
  readonly #now: () => number;
  /** Requests per kind, from consumers and from followers (replica id >= 0). */
  readonly stats: Record<'consumer' | 'follower', FetchSessionStats> = { consumer: emptyStats(), follower: emptyStats() };

  constructor(cache: FetchSessionCache, log: Logger, now: () => number = Date.now) {
    this.cache = cache;
    this.#log = log;
    this.#now = now;
  }

  newContext(req: FetchSessionRequest): FetchContext {
    const { sessionId, epoch } = req;
    const stats = req.isFollower ? this.stats.follower : this.stats.consumer;
    if (epoch === INITIAL_EPOCH || epoch === FINAL_EPOCH) {
      // A full request closes any session it names.
      const closed = sessionId !== INVALID_SESSION_ID && this.cache.remove(sessionId) !== undefined;
      if (epoch === FINAL_EPOCH) {
        stats.sessionless++;
        if (closed) this.#log.debug({ sessionId }, 'fetch session closed by its client');
        return sessionless(req.partitions);
      }
      stats.full++;
      this.#log.debug({ closed: closed ? sessionId : undefined, partitions: req.partitions.length }, 'full fetch');
      return this.#full(req);
    }
    const session = this.cache.get(sessionId);
    if (!session) {
      stats.sessionIdNotFound++;
      this.#log.debug({ sessionId }, 'fetch session error: no such session id');
      return sessionError(ErrorCode.FETCH_SESSION_ID_NOT_FOUND);
    }
    if (session.epoch !== epoch) {
      stats.invalidEpoch++;
      this.#log.debug({ sessionId, expected: session.epoch, got: epoch }, 'fetch session error: wrong epoch');
      return sessionError(ErrorCode.INVALID_FETCH_SESSION_EPOCH);
    }
    const { added, updated, removed } = session.update(req.partitions, req.forgotten);
    if (session.size === 0) {
      // Every partition was forgotten: the session ends and this request is answered as sessionless.
      this.cache.remove(session);
      stats.sessionless++;
      this.#log.debug({ sessionId, removed }, 'fetch session closed: no partitions left');
      return sessionless(req.partitions);
    }
    this.cache.touch(session, this.#now());
    session.epoch = nextEpoch(session.epoch);
    stats.incremental++;
    this.#log.debug({ sessionId, epoch: session.epoch, added, updated, removed, partitions: session.size }, 'incremental fetch');
    return incremental(session, epoch, this.#log);
  }

  #full(req: FetchSessionRequest): FetchContext {
    const { partitions, isFollower } = req;
    return {
      kind: 'full',
      partitions,
      respond: (data) => {
        const id = this.cache.maybeCreateSession(this.#now(), isFollower, data.length, () => {
          const cached = new Map<string, CachedPartition>();
          data.forEach((d, i) => cached.set(partitionKey(d.topic, d.partition), new CachedPartition(partitions[i]!, d)));
          return cached;
        });
        if (id !== INVALID_SESSION_ID) this.#log.debug({ sessionId: id, privileged: isFollower, partitions: data.length }, 'fetch session created');
        return { errorCode: ErrorCode.NONE, sessionId: id, partitions: [...data] };
      },
    };
  }
}

function emptyStats(): FetchSessionStats {
  return { sessionless: 0, full: 0, incremental: 0, sessionIdNotFound: 0, invalidEpoch: 0 };
}

function sessionless(partitions: readonly FetchPartitionRequest[]): FetchContext {
  return { kind: 'sessionless', partitions, respond: (data) => ({ errorCode: ErrorCode.NONE, sessionId: INVALID_SESSION_ID, partitions: [...data] }) };
}

function sessionError(errorCode: number): FetchContext {
  return { kind: 'error', partitions: [], respond: () => ({ errorCode, sessionId: INVALID_SESSION_ID, partitions: [] }) };
}

/**
 * An incremental fetch reads every partition of the session and answers only those with news.
 * `requestEpoch` is the epoch the request carried: if the session moved on meanwhile (a duplicate
 * request), the answer is INVALID_FETCH_SESSION_EPOCH with the session id, as Kafka does.
 */
function incremental(session: FetchSession, requestEpoch: number, log: Logger): FetchContext {
  // The cached partitions are the read requests themselves (no copy per fetch of a large session).
  const cached = [...session.partitions.values()];
  return {
    kind: 'incremental',
    partitions: cached,
    respond: (data) => {
      if (session.epoch !== nextEpoch(requestEpoch)) {
        log.info({ sessionId: session.id, expected: nextEpoch(requestEpoch), actual: session.epoch }, 'fetch session epoch moved during the fetch; possible duplicate request');
        return { errorCode: ErrorCode.INVALID_FETCH_SESSION_EPOCH, sessionId: session.id, partitions: [] };
      }
      const selected: FetchPartitionData[] = [];
      data.forEach((d, i) => {
        // data[i] answers cached[i] (the replica manager answers in request order).
        let c: CachedPartition | undefined = cached[i];
        if (!c || c.partition !== d.partition || c.topic !== d.topic) c = session.partitions.get(partitionKey(d.topic, d.partition));
        if (!c || !c.maybeUpdateResponseData(d, true)) return;
        selected.push(d);
        // Round-robin: what was just returned goes to the back of the session.
        session.partitions.delete(c.key);
        session.partitions.set(c.key, c);
      });
      return { errorCode: ErrorCode.NONE, sessionId: session.id, partitions: selected };
    },
  };
}
