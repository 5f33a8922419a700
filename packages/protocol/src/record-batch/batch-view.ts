import { crc32c } from '@node-rs/crc32';
import { CorruptDataError, ErrorCode, GregorError } from '@gregor/common';
import { Attributes, BATCH_HEADER_SIZE, BATCH_LOG_OVERHEAD, BatchOffsets as O, CURRENT_MAGIC } from './batch-header.js';

/**
 * Shallow access to RecordBatch v2 headers inside a record set, without decoding records. Storage
 * and the broker use these on every produce and fetch, so they read fixed offsets and never copy.
 */
export interface BatchHeader {
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

/** Reads the 61-byte header of the batch at `pos` (does not check the CRC). */
export function readBatchHeader(buf: Buffer, pos = 0): BatchHeader {
  if (pos < 0 || buf.length - pos < BATCH_LOG_OVERHEAD + 5) {
    throw new CorruptDataError(`record batch at ${pos} truncated: ${Math.max(0, buf.length - pos)} bytes`);
  }
  const magic = buf.readInt8(pos + O.magic);
  checkMagic(magic, pos);
  if (buf.length - pos < BATCH_HEADER_SIZE) throw new CorruptDataError(`record batch header at ${pos} truncated: ${buf.length - pos} of ${BATCH_HEADER_SIZE} bytes`);
  const batchLength = buf.readInt32BE(pos + O.batchLength);
  if (batchLength < BATCH_HEADER_SIZE - BATCH_LOG_OVERHEAD) throw new CorruptDataError(`record batch at ${pos} has invalid length ${batchLength}`);
  const baseOffset = Number(buf.readBigInt64BE(pos + O.baseOffset));
  const attributes = buf.readInt16BE(pos + O.attributes);
  const lastOffsetDelta = buf.readInt32BE(pos + O.lastOffsetDelta);
  return {
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
    firstTimestamp: Number(buf.readBigInt64BE(pos + O.firstTimestamp)),
    maxTimestamp: Number(buf.readBigInt64BE(pos + O.maxTimestamp)),
    producerId: Number(buf.readBigInt64BE(pos + O.producerId)),
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
export function validateBatch(buf: Buffer, pos = 0): BatchHeader {
  const header = readBatchHeader(buf, pos);
  if (pos + header.sizeInBytes > buf.length) {
    throw new CorruptDataError(`record batch at ${pos} truncated: needs ${header.sizeInBytes} bytes, ${buf.length - pos} present`);
  }
  const actual = computeBatchCrc(buf, pos, header.sizeInBytes);
  if (actual !== header.crc) {
    throw new CorruptDataError(`record batch at ${pos} (base offset ${header.baseOffset}) fails its CRC-32C: stored ${hex(header.crc)}, computed ${hex(actual)}`);
  }
  return header;
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

/** Assigns offsets: the CRC does not cover baseOffset, so it stays valid. */
export function setBaseOffset(buf: Buffer, pos: number, baseOffset: number): void {
  buf.writeBigInt64BE(BigInt(baseOffset), pos + O.baseOffset);
}

/** Stamps the leader epoch: the CRC does not cover it either. */
export function setPartitionLeaderEpoch(buf: Buffer, pos: number, epoch: number): void {
  buf.writeInt32BE(epoch, pos + O.partitionLeaderEpoch);
}
