import { ErrorCode } from '@gregor/common';
import type { FetchPartitionData, FetchPartitionRequest } from '../cluster/replica-manager.js';
import { partitionKey } from '../cluster/partition.js';

/** KIP-227 request metadata values (Kafka's FetchMetadata). */
export const INVALID_SESSION_ID = 0;
export const INITIAL_EPOCH = 0;
export const FINAL_EPOCH = -1;
const INT32_MAX = 2_147_483_647;

/** The epoch after `epoch`: FINAL stays FINAL, Int.MAX wraps to 1 (0 means "full fetch" and is never reused). */
export function nextEpoch(epoch: number): number {
  if (epoch < 0) return FINAL_EPOCH;
  if (epoch === INT32_MAX) return 1;
  return epoch + 1;
}

/**
 * One partition of a fetch session (Kafka's CachedPartition): the request parameters the client last
 * sent for it, and what the last response told the client (HW, log start), so an incremental response
 * can leave it out when nothing changed.
 */
export class CachedPartition implements FetchPartitionRequest {
  readonly topic: string;
  readonly partition: number;
  readonly key: string;
  // The request parameters (FetchPartitionRequest's names): an incremental fetch reads with these.
  partitionMaxBytes: number;
  fetchOffset: number;
  currentLeaderEpoch: number;
  /** The fetcher's own log start offset (followers). */
  logStartOffset: number;
  /** The high watermark last sent; -1 after an error so the partition is sent again when it clears. */
  highWatermark: number;
  /** This broker's log start offset last sent. */
  localLogStartOffset: number;

  constructor(req: FetchPartitionRequest, resp?: FetchPartitionData) {
    this.topic = req.topic;
    this.partition = req.partition;
    this.key = partitionKey(req.topic, req.partition);
    this.partitionMaxBytes = req.partitionMaxBytes;
    this.fetchOffset = req.fetchOffset;
    this.currentLeaderEpoch = req.currentLeaderEpoch;
    this.logStartOffset = req.logStartOffset ?? -1;
    this.highWatermark = resp?.highWatermark ?? -1;
    this.localLogStartOffset = resp?.logStartOffset ?? -1;
  }

  updateRequestParams(req: FetchPartitionRequest): void {
    this.partitionMaxBytes = req.partitionMaxBytes;
    this.fetchOffset = req.fetchOffset;
    this.logStartOffset = req.logStartOffset ?? -1;
    this.currentLeaderEpoch = req.currentLeaderEpoch;
  }

  /**
   * Whether an incremental response must include this partition: it has records, its HW or log start
   * changed, or it has an error (which resets the cached HW to -1). With `update`, the cache takes the
   * new values. (Kafka also includes preferred read replicas and diverging epochs; gregor sends neither.)
   */
  maybeUpdateResponseData(resp: FetchPartitionData, update: boolean): boolean {
    let mustRespond = resp.records.length > 0;
    if (this.highWatermark !== resp.highWatermark) {
      mustRespond = true;
      if (update) this.highWatermark = resp.highWatermark;
    }
    if (this.localLogStartOffset !== resp.logStartOffset) {
      mustRespond = true;
      if (update) this.localLogStartOffset = resp.logStartOffset;
    }
    if (resp.errorCode !== ErrorCode.NONE) {
      if (update) this.highWatermark = -1;
      mustRespond = true;
    }
    return mustRespond;
  }
}

/**
 * An incremental fetch session (Kafka's FetchSession). Its partitions keep the order the client gave
 * them, except that partitions returned in a response move to the end, so a response limited by
 * max_bytes serves the others first next time.
 */
export class FetchSession {
  readonly id: number;
  /** Follower sessions are privileged: they may evict consumer sessions. */
  readonly privileged: boolean;
  readonly partitions: Map<string, CachedPartition>;
  readonly creationMs: number;
  /** Only FetchSessionCache.touch sets it (2.8.2: at creation and on every incremental fetch). */
  lastUsedMs: number;
  /** The epoch the next incremental request must carry. */
  epoch: number;
  /** The partition count at the last touch (the eviction rank and the cache's partition total use it); -1 = not cached. */
  cachedSize = -1;
  /** Eviction eligibility, decided at the last touch as Kafka's evictable trees are. */
  evictableByAll = false;
  evictableByPrivileged = false;

  constructor(id: number, privileged: boolean, partitions: Map<string, CachedPartition>, creationMs: number, lastUsedMs: number, epoch: number) {
    this.id = id;
    this.privileged = privileged;
    this.partitions = partitions;
    this.creationMs = creationMs;
    this.lastUsedMs = lastUsedMs;
    this.epoch = epoch;
  }

  get size(): number {
    return this.partitions.size;
  }

  /** Applies an incremental request: listed partitions are added or updated, forgotten ones removed. */
  update(toSend: readonly FetchPartitionRequest[], toForget: readonly { topic: string; partition: number }[]): { added: number; updated: number; removed: number } {
    let added = 0;
    let updated = 0;
    let removed = 0;
    for (const req of toSend) {
      const key = partitionKey(req.topic, req.partition);
      const cached = this.partitions.get(key);
      if (cached) {
        cached.updateRequestParams(req);
        updated++;
      } else {
        this.partitions.set(key, new CachedPartition(req));
        added++;
      }
    }
    for (const tp of toForget) if (this.partitions.delete(partitionKey(tp.topic, tp.partition))) removed++;
    return { added, updated, removed };
  }

  toString(): string {
    return `FetchSession(id=${this.id}, privileged=${this.privileged}, partitions=${this.size}, creationMs=${this.creationMs}, lastUsedMs=${this.lastUsedMs}, epoch=${this.epoch})`;
  }
}
