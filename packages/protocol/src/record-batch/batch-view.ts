import { crc32c } from '@node-rs/crc32';
import { CorruptDataError, ErrorCode, GregorError } from '@gregor/common';
import { readInt64Number } from '../primitives/int64.js';
import { Attributes, BATCH_HEADER_SIZE, BATCH_LOG_OVERHEAD, BatchOffsets as O, CURRENT_MAGIC } from './batch-header.js';

/**
 * Shallow access to RecordBatch v2 headers inside a record set, without decoding records. Storage
 * and the broker use these on every produce and fetch, so they read fixed offsets and never copy.
 */
export interface BatchHeader {
  /** Where the batch starts: in the buffer it was read from, or in the file that buffer was read from. */
  position: number;
  baseOffset: number;
  /** Bytes after the batchLength field; the batch occupies batchLength + 12 bytes. */
  batchLength: number;
  partitionLeaderEpoch: number;
  magic: number;
  crc: number;
  attributes: number;
  compression: number;
  /** 0 = CreateTime, 1 = LogAppendTime. */
  timestampType: number;
  isTransactional: boolean;
  isControl: boolean;
  lastOffsetDelta: number;
  firstTimestamp: number;
  maxTimestamp: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  recordCount: number;
  /** baseOffset + lastOffsetDelta. */
  lastOffset: number;
  /** Total bytes of the batch, header included. */
  sizeInBytes: number;
}

export const TimestampType = { createTime: 0, logAppendTime: 1 } as const;

/** Message sets of magic 0/1 are not supported: gregor stores and serves RecordBatch v2 only. */
function checkMagic(magic: number, pos: number): void {
  if (magic === CURRENT_MAGIC) return;
  if (magic === 0 || magic === 1) {
    throw new GregorError(ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT, `legacy message format (magic ${magic}) at ${pos} is not supported; use RecordBatch v2`);
  }
  throw new CorruptDataError(`unknown record batch magic ${magic} at ${pos}`);
}

/** Total size of the batch at `pos` from its length field, or null if the 12-byte prefix is not all there. */
export function batchSizeAt(buf: Buffer, pos: number): number | null {
  if (pos + BATCH_LOG_OVERHEAD > buf.length) return null;
  return buf.readInt32BE(pos + O.batchLength) + BATCH_LOG_OVERHEAD;
}

/** The last offset of the batch at `pos` (baseOffset + lastOffsetDelta), read at fixed offsets without a header object. */
export function batchLastOffsetAt(buf: Buffer, pos: number): number {
  return readInt64Number(buf, pos + O.baseOffset) + buf.readInt32BE(pos + O.lastOffsetDelta);
}

/**
 * Reads the 61-byte header of the batch at `pos` (does not check the CRC). `position` is what the header reports
 * as its position: `pos` by default, a file position when `buf` is a window read from a segment.
 */
export function readBatchHeader(buf: Buffer, pos = 0, position = pos): BatchHeader {
  if (pos < 0 || buf.length - pos < BATCH_LOG_OVERHEAD + 5) {
    throw new CorruptDataError(`record batch at ${pos} truncated: ${Math.max(0, buf.length - pos)} bytes`);
  }
  const magic = buf.readInt8(pos + O.magic);
  checkMagic(magic, pos);
  if (buf.length - pos < BATCH_HEADER_SIZE) throw new CorruptDataError(`record batch header at ${pos} truncated: ${buf.length - pos} of ${BATCH_HEADER_SIZE} bytes`);
  const batchLength = buf.readInt32BE(pos + O.batchLength);
  if (batchLength < BATCH_HEADER_SIZE - BATCH_LOG_OVERHEAD) throw new CorruptDataError(`record batch at ${pos} has invalid length ${batchLength}`);
  const baseOffset = readInt64Number(buf, pos + O.baseOffset);
  const attributes = buf.readInt16BE(pos + O.attributes);
  const lastOffsetDelta = buf.readInt32BE(pos + O.lastOffsetDelta);
  return {
    position,
    baseOffset,
    batchLength,
    partitionLeaderEpoch: buf.readInt32BE(pos + O.partitionLeaderEpoch),
    magic,
    crc: buf.readUInt32BE(pos + O.crc),
    attributes,
    compression: attributes & Attributes.compressionMask,
    timestampType: (attributes & Attributes.timestampTypeLogAppend) !== 0 ? 1 : 0,
    isTransactional: (attributes & Attributes.transactional) !== 0,
    isControl: (attributes & Attributes.control) !== 0,
    lastOffsetDelta,
    firstTimestamp: readInt64Number(buf, pos + O.firstTimestamp),
    maxTimestamp: readInt64Number(buf, pos + O.maxTimestamp),
    producerId: readInt64Number(buf, pos + O.producerId),
    producerEpoch: buf.readInt16BE(pos + O.producerEpoch),
    baseSequence: buf.readInt32BE(pos + O.baseSequence),
    recordCount: buf.readInt32BE(pos + O.recordCount),
    lastOffset: baseOffset + lastOffsetDelta,
    sizeInBytes: batchLength + BATCH_LOG_OVERHEAD,
  };
}

/** CRC-32C of a batch as stored: attributes through the end. */
export function computeBatchCrc(buf: Buffer, pos: number, sizeInBytes: number): number {
  return crc32c(buf.subarray(pos + O.attributes, pos + sizeInBytes)) >>> 0;
}

/** Checks that the whole batch at `pos` is present, has magic 2 and a matching CRC-32C; returns its header. */
export function validateBatch(buf: Buffer, pos = 0, position = pos): BatchHeader {
  const header = readBatchHeader(buf, pos, position);
  if (pos + header.sizeInBytes > buf.length) {
    throw new CorruptDataError(`record batch at ${pos} truncated: needs ${header.sizeInBytes} bytes, ${buf.length - pos} present`);
  }
  const actual = computeBatchCrc(buf, pos, header.sizeInBytes);
  if (actual !== header.crc) {
    throw new CorruptDataError(`record batch at ${pos} (base offset ${header.baseOffset}) fails its CRC-32C: stored ${hex(header.crc)}, computed ${hex(actual)}`);
  }
  return header;
}

/**
 * What storage checks past the CRC before it keeps a batch (a CRC-valid batch can still lie): a record count and a
 * last offset delta that are not negative. Null when sound.
 */
export function batchCountsProblem(header: BatchHeader): string | null {
  if (header.lastOffsetDelta < 0) return `negative lastOffsetDelta ${header.lastOffsetDelta}`;
  if (header.recordCount < 0) return `negative record count ${header.recordCount}`;
  return null;
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, '0')}`;
}

export interface ForEachBatchOptions {
  /** Stop quietly at an incomplete last batch (fetch responses may end with one) instead of throwing. */
  allowPartialTail?: boolean;
  /** Verify every batch's CRC-32C. */
  verifyCrc?: boolean;
}

/**
 * Calls `fn(header, position)` for each batch of a record set. Returns the number of bytes covered
 * by complete batches (the valid prefix length, used by storage to truncate a torn tail).
 * `fn` may return false to stop early.
 */
export function forEachBatch(
  buf: Buffer,
  fn: (header: BatchHeader, position: number) => void | boolean,
  options: ForEachBatchOptions = {},
): number {
  let pos = 0;
  while (pos < buf.length) {
    const remaining = buf.length - pos;
    if (remaining < BATCH_HEADER_SIZE) {
      if (options.allowPartialTail) return pos;
      throw new CorruptDataError(`record set ends with ${remaining} bytes, less than a batch header`);
    }
    const batchLength = buf.readInt32BE(pos + O.batchLength);
    if (options.allowPartialTail && batchLength >= BATCH_HEADER_SIZE - BATCH_LOG_OVERHEAD && remaining < batchLength + BATCH_LOG_OVERHEAD) return pos;
    const header = options.verifyCrc ? validateBatch(buf, pos) : readBatchHeader(buf, pos);
    if (pos + header.sizeInBytes > buf.length) {
      throw new CorruptDataError(`record batch at ${pos} truncated: needs ${header.sizeInBytes} bytes, ${remaining} present`);
    }
    if (fn(header, pos) === false) return pos + header.sizeInBytes;
    pos += header.sizeInBytes;
  }
  return pos;
}

export interface SplitBatchesOptions {
  /** Stop quietly before an incomplete last batch (a fetch answer may end with one; Kafka's trimInvalidBytes). */
  allowPartialTail?: boolean;
}

/**
 * Storage's one pass over a record set it is about to keep: every batch whole, magic 2, CRC-32C matching and counts
 * sane (batchCountsProblem). Returns the headers, positions relative to `buf`. Any problem is a CorruptDataError
 * naming the batch's index and byte position; so is a partial last batch unless `allowPartialTail` (then the
 * headers cover a prefix of `buf`: the last one's position + sizeInBytes).
 */
export function splitBatches(buf: Buffer, options: SplitBatchesOptions = {}): BatchHeader[] {
  const batches: BatchHeader[] = [];
  let pos = 0;
  while (pos < buf.length) {
    const remaining = buf.length - pos;
    const size = batchSizeAt(buf, pos);
    if (options.allowPartialTail && (remaining < BATCH_HEADER_SIZE || (size! >= BATCH_HEADER_SIZE && size! > remaining))) return batches;
    if (size === null || size < BATCH_HEADER_SIZE || size > remaining) {
      throw new CorruptDataError(`batch ${batches.length} at byte ${pos}: truncated or invalid length (${size ?? 'missing'})`);
    }
    let header: BatchHeader;
    try {
      header = validateBatch(buf, pos);
    } catch (err) {
      // Any magic but 2 is corruption here (CORRUPT_MESSAGE), as the old storage scan reported it.
      throw new CorruptDataError(`batch ${batches.length} at byte ${pos}: ${(err as Error).message}`, { cause: err });
    }
    const problem = batchCountsProblem(header);
    if (problem !== null) throw new CorruptDataError(`batch ${batches.length} at byte ${pos}: ${problem}`);
    batches.push(header);
    pos += size;
  }
  return batches;
}

/**
 * The bytes of `buf` taken by whole batches from the start, stopping before a partial batch and before the first
 * batch holding an offset >= `maxOffset`. Reads only the length and offset fields (a fetch from the log's own files).
 */
export function wholeBatchesLength(buf: Buffer, maxOffset = Number.POSITIVE_INFINITY): number {
  let length = 0;
  for (;;) {
    const size = batchSizeAt(buf, length);
    if (size === null || size < BATCH_HEADER_SIZE || length + size > buf.length) return length;
    if (batchLastOffsetAt(buf, length) >= maxOffset) return length;
    length += size;
  }
}

/** Assigns offsets: the CRC does not cover baseOffset, so it stays valid. */
export function setBaseOffset(buf: Buffer, pos: number, baseOffset: number): void {
  buf.writeBigInt64BE(BigInt(baseOffset), pos + O.baseOffset);
}

/** Stamps the leader epoch: the CRC does not cover it either. */
export function setPartitionLeaderEpoch(buf: Buffer, pos: number, epoch: number): void {
  buf.writeInt32BE(epoch, pos + O.partitionLeaderEpoch);
}
