import { ErrorCode, GregorError } from '@gregor/common';
import { BatchOffsets, CompressionType, encodeRecordBatch, splitBatches } from '@gregor/protocol';
import { DEFAULT_LOG_CONFIG, type LeaderAppendInfo, type LogConfig } from '@gregor/storage';
import type { ReplicaLog, ReplicaLogManager } from '../../src/cluster/replica-log.js';

interface StoredBatch {
  baseOffset: number;
  lastOffset: number;
  epoch: number;
  bytes: Buffer;
}

/** An in-memory leader-epoch cache with PartitionLog's rules (assign, latest epoch, KIP-279 end offsets). */
export class InMemoryEpochCache {
  entries: { epoch: number; startOffset: number }[] = [];
  readonly #leo: () => number;

  constructor(leo: () => number) {
    this.#leo = leo;
  }

  get latestEpoch(): number {
    return this.entries.at(-1)?.epoch ?? -1;
  }

  assign(epoch: number, startOffset: number): void {
    if (epoch < 0) return;
    const last = this.entries.at(-1);
    if (last && last.epoch === epoch && startOffset >= last.startOffset) return;
    this.entries = this.entries.filter((e) => e.epoch < epoch && e.startOffset < startOffset);
    this.entries.push({ epoch, startOffset });
  }

  endOffsetFor(requested: number): { epoch: number; endOffset: number } {
    if (requested < 0 || this.entries.length === 0) return { epoch: -1, endOffset: -1 };
    if (requested === this.latestEpoch) return { epoch: requested, endOffset: this.#leo() };
    const next = this.entries.findIndex((e) => e.epoch > requested);
    if (next < 0) return { epoch: -1, endOffset: -1 };
    return { epoch: next > 0 ? this.entries[next - 1]!.epoch : requested, endOffset: this.entries[next]!.startOffset };
  }

  truncateFromEnd(end: number): void {
    this.entries = this.entries.filter((e) => e.startOffset < end);
  }
}

/** A partition log held in memory: whole batches with their offsets and epochs, a HW, a log start. */
export class InMemoryLog implements ReplicaLog {
  readonly topic: string;
  readonly partition: number;
  readonly leaderEpochCache: InMemoryEpochCache;
  batches: StoredBatch[] = [];
  #hw = 0;
  #logStart = 0;
  #leo = 0;
  /** Every truncation, for assertions. */
  readonly truncations: { kind: 'to' | 'fully'; offset: number }[] = [];
  /** Only max.message.bytes is read (Produce v0-2 up-conversion). */
  readonly config: LogConfig = { ...DEFAULT_LOG_CONFIG };

  constructor(topic: string, partition: number) {
    this.topic = topic;
    this.partition = partition;
    this.leaderEpochCache = new InMemoryEpochCache(() => this.#leo);
  }

  get highWatermark(): number {
    return this.#hw;
  }
  get logStartOffset(): number {
    return this.#logStart;
  }
  get logEndOffset(): number {
    return this.#leo;
  }

  appendAsLeader(records: Buffer, leaderEpoch: number): LeaderAppendInfo {
    const firstOffset = this.#leo;
    const out = Buffer.from(records);
    for (const b of splitBatches(out)) {
      out.writeBigInt64BE(BigInt(this.#leo), b.position + BatchOffsets.baseOffset);
      out.writeInt32BE(leaderEpoch, b.position + BatchOffsets.partitionLeaderEpoch);
      this.#store({ baseOffset: this.#leo, lastOffset: this.#leo + b.lastOffsetDelta, epoch: leaderEpoch, bytes: out.subarray(b.position, b.position + b.sizeInBytes) });
    }
    return { firstOffset, lastOffset: this.#leo - 1, maxTimestamp: -1, logAppendTimeMs: -1, duplicate: false };
  }

  appendAsFollower(records: Buffer): { firstOffset: number; lastOffset: number } {
    // As PartitionLog: a partial last batch (fetch answers may end with one) is left out.
    const batches = splitBatches(records, { allowPartialTail: true });
    if (batches.length === 0) return { firstOffset: -1, lastOffset: -1 };
    if (batches[0]!.baseOffset < this.#leo) throw new GregorError(ErrorCode.OFFSET_OUT_OF_RANGE, `follower append at ${batches[0]!.baseOffset} below ${this.#leo}`);
    for (const b of batches) {
      this.#leo = b.baseOffset;
      this.#store({ baseOffset: b.baseOffset, lastOffset: b.lastOffset, epoch: b.partitionLeaderEpoch, bytes: Buffer.from(records.subarray(b.position, b.position + b.sizeInBytes)) });
    }
    return { firstOffset: batches[0]!.baseOffset, lastOffset: batches.at(-1)!.lastOffset };
  }

  #store(b: StoredBatch): void {
    this.batches.push(b);
    this.leaderEpochCache.assign(b.epoch, b.baseOffset);
    this.#leo = b.lastOffset + 1;
  }

  read(fetchOffset: number, maxBytes: number, maxOffset: number, minOneBatch: boolean): { records: Buffer; firstOffset: number } {
    if (fetchOffset < this.#logStart || fetchOffset > this.#leo) {
      throw new GregorError(ErrorCode.OFFSET_OUT_OF_RANGE, `offset ${fetchOffset} outside [${this.#logStart}, ${this.#leo}]`);
    }
    const out: Buffer[] = [];
    let size = 0;
    for (const b of this.batches) {
      if (b.lastOffset < fetchOffset) continue;
      if (b.lastOffset >= maxOffset) break;
      if (size + b.bytes.length > maxBytes && !(minOneBatch && out.length === 0)) break;
      out.push(b.bytes);
      size += b.bytes.length;
    }
    return { records: Buffer.concat(out), firstOffset: this.batches.find((b) => b.lastOffset >= fetchOffset)?.baseOffset ?? fetchOffset };
  }

  truncateTo(offset: number): void {
    if (offset >= this.#leo) return;
    this.truncations.push({ kind: 'to', offset });
    this.batches = this.batches.filter((b) => b.lastOffset < offset);
    this.#leo = this.batches.at(-1) ? this.batches.at(-1)!.lastOffset + 1 : Math.min(offset, this.#logStart);
    this.#hw = Math.min(this.#hw, this.#leo);
    this.leaderEpochCache.truncateFromEnd(this.#leo);
  }

  truncateFullyAndStartAt(offset: number): void {
    this.truncations.push({ kind: 'fully', offset });
    this.batches = [];
    this.#logStart = this.#leo = this.#hw = offset;
    this.leaderEpochCache.entries = [];
  }

  maybeIncrementLogStartOffset(offset: number): boolean {
    if (offset > this.#hw) throw new GregorError(ErrorCode.OFFSET_OUT_OF_RANGE, `log start ${offset} above the HW ${this.#hw}`);
    if (offset <= this.#logStart) return false;
    this.#logStart = offset;
    this.batches = this.batches.filter((b) => b.lastOffset >= offset);
    return true;
  }

  updateHighWatermark(offset: number): number {
    this.#hw = Math.min(Math.max(offset, this.#logStart), this.#leo);
    return this.#hw;
  }

  maybeIncrementHighWatermark(offset: number): boolean {
    if (offset > this.#leo) throw new RangeError(`high watermark ${offset} above the log end offset ${this.#leo}`);
    if (offset <= this.#hw) return false;
    this.#hw = offset;
    return true;
  }
}

/** A log manager of in-memory logs. */
export class InMemoryLogManager implements ReplicaLogManager<InMemoryLog> {
  readonly logs = new Map<string, InMemoryLog>();

  getOrCreateLog(topic: string, partition: number, _config?: Partial<LogConfig>): InMemoryLog {
    const k = `${topic}-${partition}`;
    let log = this.logs.get(k);
    if (!log) this.logs.set(k, (log = new InMemoryLog(topic, partition)));
    return log;
  }
  deleteLog(topic: string, partition: number): void {
    this.logs.delete(`${topic}-${partition}`);
  }
  checkpointLogStartOffsets(): void {}
  async checkpointLogStartOffsetsAsync(): Promise<void> {}
  /** Log dirs never fail in memory. */
  isPartitionOffline(_topic: string, _partition: number): boolean {
    return false;
  }
}

/** A batch of `count` records with values `${prefix}${i}` (offsets are assigned on append). */
export function batchOf(count: number, prefix = 'v'): Buffer {
  const t = 1_700_000_000_000;
  return encodeRecordBatch({
    baseOffset: 0,
    compression: CompressionType.none,
    firstTimestamp: t,
    records: Array.from({ length: count }, (_, i) => ({ key: null, value: Buffer.from(`${prefix}${i}`), headers: [], timestamp: t })),
  });
}

/** A batch as a leader stores it: at `baseOffset` in `epoch` (for follower appends). */
export function leaderBatch(baseOffset: number, count: number, epoch: number): Buffer {
  const b = batchOf(count);
  b.writeBigInt64BE(BigInt(baseOffset), BatchOffsets.baseOffset);
  b.writeInt32BE(epoch, BatchOffsets.partitionLeaderEpoch);
  return b;
}
