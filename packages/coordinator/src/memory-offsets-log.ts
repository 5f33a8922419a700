import { ErrorCode } from '@gregor/common';
import { setBaseOffset } from '@gregor/protocol';
import type { OffsetsTopicLog } from './offsets-topic-log.js';

/** An in-memory `__consumer_offsets` for unit tests: appends assign offsets, reads return whole batches. */
export class MemoryOffsetsLog implements OffsetsTopicLog {
  readonly partitions = new Map<number, { baseOffset: number; bytes: Buffer; count: number }[]>();
  failWith: number = ErrorCode.NONE;
  appends = 0;

  async append(partition: number, records: Buffer): Promise<number> {
    if (this.failWith !== ErrorCode.NONE) return this.failWith;
    const batches = this.partitions.get(partition) ?? [];
    this.partitions.set(partition, batches);
    const last = batches.at(-1);
    const base = last ? last.baseOffset + last.count : 0;
    const bytes = Buffer.from(records);
    setBaseOffset(bytes, 0, base);
    batches.push({ baseOffset: base, bytes, count: bytes.readInt32BE(23) + 1 });
    this.appends++;
    return ErrorCode.NONE;
  }

  read(partition: number, offset: number, maxBytes: number) {
    const batches = this.partitions.get(partition) ?? [];
    const last = batches.at(-1);
    const logEndOffset = last ? last.baseOffset + last.count : 0;
    const out = maxBytes <= 0 ? [] : batches.filter((b) => b.baseOffset >= offset);
    return { records: Buffer.concat(out.map((b) => b.bytes)), logStartOffset: 0, logEndOffset };
  }
}
