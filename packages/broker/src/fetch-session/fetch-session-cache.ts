import { randomInt } from 'node:crypto';
import type { CachedPartition } from './fetch-session.js';
import { FetchSession, INITIAL_EPOCH, INVALID_SESSION_ID, nextEpoch } from './fetch-session.js';

/** Kafka's hard-coded `evictionMs`: a session unused this long may be evicted by anyone. */
export const FETCH_SESSION_EVICTION_MS = 120_000;

/** Kafka's EvictableKey, compared as (privileged, size, id) with false < true. */
interface EvictableKey {
  privileged: boolean;
  size: number;
  id: number;
}

function compareEvictable(a: EvictableKey, b: EvictableKey): number {
  if (a.privileged !== b.privileged) return a.privileged ? 1 : -1;
  if (a.size !== b.size) return a.size - b.size;
  return a.id - b.id;
}

/**
 * The broker's fetch sessions (Kafka's FetchSessionCache, `max.incremental.fetch.session.cache.slots`).
 * When full, a newcomer gets a slot by evicting (1) the least recently used session if it has been
 * unused for more than `evictionMs`, else (2) the lowest-ranked eligible session, if the newcomer ranks
 * higher: privileged beats unprivileged; with the same privilege, strictly more partitions wins.
 * Eligible for a privileged newcomer: unprivileged sessions and privileged ones created more than
 * `evictionMs` ago; for an unprivileged newcomer: sessions created more than `evictionMs` ago.
 * Eligibility is decided when a session is touched, as Kafka's evictable trees are. The cache holds at
 * most a few thousand sessions and only scans them when it is full and a session is being created.
 */
export class FetchSessionCache {
  readonly maxEntries: number;
  readonly evictionMs: number;
  readonly #sessions = new Map<number, FetchSession>();
  readonly #newId: () => number;
  #numPartitions = 0;
  /** Sessions evicted to make room (Kafka's IncrementalFetchSessionEvictionsPerSec, as a total). */
  evictions = 0;

  constructor(maxEntries: number, evictionMs = FETCH_SESSION_EVICTION_MS, newId: () => number = () => randomInt(1, 2_147_483_647)) {
    this.maxEntries = maxEntries;
    this.evictionMs = evictionMs;
    this.#newId = newId;
  }

  get(sessionId: number): FetchSession | undefined {
    return this.#sessions.get(sessionId);
  }

  /** Sessions cached (Kafka's NumIncrementalFetchSessions). */
  get size(): number {
    return this.#sessions.size;
  }

  /** Partitions in all cached sessions, as of each session's last touch (NumIncrementalFetchPartitionsCached). */
  get totalPartitions(): number {
    return this.#numPartitions;
  }

  sessions(): FetchSession[] {
    return [...this.#sessions.values()];
  }

  /** A new random id in 1..Int.MAX-1, unique on this broker. */
  newSessionId(): number {
    let id: number;
    do id = this.#newId();
    while (id === INVALID_SESSION_ID || this.#sessions.has(id));
    return id;
  }

  /**
   * Creates a session if there is room or one can be evicted for it; returns its id, or
   * INVALID_SESSION_ID (0) when the client must go on without one.
   */
  maybeCreateSession(now: number, privileged: boolean, size: number, createPartitions: () => Map<string, CachedPartition>): number {
    if (this.#sessions.size < this.maxEntries || this.tryEvict(privileged, { privileged, size, id: 0 }, now)) {
      const session = new FetchSession(this.newSessionId(), privileged, createPartitions(), now, now, nextEpoch(INITIAL_EPOCH));
      this.#sessions.set(session.id, session);
      this.touch(session, now);
      return session.id;
    }
    return INVALID_SESSION_ID;
  }

  /** Makes room for a newcomer ranked `key`; true if a session was evicted. */
  tryEvict(privileged: boolean, key: EvictableKey, now: number): boolean {
    let lru: FetchSession | undefined;
    for (const s of this.#sessions.values()) {
      if (!lru || s.lastUsedMs < lru.lastUsedMs || (s.lastUsedMs === lru.lastUsedMs && s.id < lru.id)) lru = s;
    }
    if (!lru) return false;
    if (now - lru.lastUsedMs > this.evictionMs) {
      this.remove(lru);
      this.evictions++;
      return true;
    }
    let lowest: FetchSession | undefined;
    for (const s of this.#sessions.values()) {
      if (!(privileged ? s.evictableByPrivileged : s.evictableByAll)) continue;
      if (!lowest || compareEvictable(evictableKey(s), evictableKey(lowest)) < 0) lowest = s;
    }
    if (!lowest || compareEvictable(key, evictableKey(lowest)) < 0) return false;
    this.remove(lowest);
    this.evictions++;
    return true;
  }

  /** Removes a session (closed by its client, evicted, or emptied); returns it if it was cached. */
  remove(sessionOrId: FetchSession | number): FetchSession | undefined {
    const id = typeof sessionOrId === 'number' ? sessionOrId : sessionOrId.id;
    const session = this.#sessions.get(id);
    if (!session) return undefined;
    this.#sessions.delete(id);
    this.#numPartitions -= session.cachedSize;
    session.cachedSize = -1;
    session.evictableByAll = false;
    session.evictableByPrivileged = false;
    return session;
  }

  /** Marks a session used now (2.8.2: on creation and every incremental fetch) and re-ranks it. */
  touch(session: FetchSession, now: number): void {
    session.lastUsedMs = now;
    if (session.cachedSize !== -1) this.#numPartitions -= session.cachedSize;
    session.cachedSize = session.size;
    this.#numPartitions += session.cachedSize;
    const old = now - session.creationMs > this.evictionMs;
    session.evictableByPrivileged = !session.privileged || old;
    session.evictableByAll = old;
  }
}

function evictableKey(s: FetchSession): EvictableKey {
  return { privileged: s.privileged, size: s.cachedSize, id: s.id };
}
