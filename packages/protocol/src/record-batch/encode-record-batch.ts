import { crc32c } from '@node-rs/crc32';
import { Writer } from '../primitives/writer.js';
import { Attributes, BATCH_HEADER_SIZE, BATCH_LOG_OVERHEAD, BatchOffsets as O, CompressionType, CURRENT_MAGIC, type CompressionCodec } from './batch-header.js';
import { compressionCodec } from './compression.js';
import type { RecordInput } from './record.js';

export interface RecordBatchInput {
  baseOffset: number;
  partitionLeaderEpoch?: number;
  compression: CompressionCodec;
  /** 0 = CreateTime (default), 1 = LogAppendTime. */
  timestampType?: number;
  isTransactional?: boolean;
  isControl?: boolean;
  firstTimestamp: number;
  producerId?: number;
  producerEpoch?: number;
  baseSequence?: number;
  /** Default records.length - 1; larger when the batch spans offsets it no longer holds (compaction). */
  lastOffsetDelta?: number;
  records: readonly RecordInput[];
}

/**
 * Record (all varints signed zigzag):
 *   length varint | attributes i8 | timestampDelta varlong | offsetDelta varint
 *   keyLength varint | key | valueLength varint | value | headerCount varint
 *   [headerKeyLength varint | headerKey | headerValueLength varint | headerValue]
 */
function writeRecord(w: Writer, record: RecordInput, offsetDelta: number, firstTimestamp: number): void {
  const timestampDelta = record.timestamp - firstTimestamp;
  let size = 1 + varlongSize(timestampDelta) + varintSize(offsetDelta) + varBytesSize(record.key) + varBytesSize(record.value);
  size += varintSize(record.headers.length);
  const headerKeys = record.headers.map((h) => Buffer.from(h.key, 'utf8'));
  for (let i = 0; i < headerKeys.length; i++) size += varBytesSize(headerKeys[i]!) + varBytesSize(record.headers[i]!.value);
  w.varint(size).int8(0).varlong(timestampDelta).varint(offsetDelta);
  writeVarBytes(w, record.key);
  writeVarBytes(w, record.value);
  w.varint(record.headers.length);
  for (let i = 0; i < headerKeys.length; i++) {
    writeVarBytes(w, headerKeys[i]!);
    writeVarBytes(w, record.headers[i]!.value);
  }
}

function varintSize(v: number): number {
  let z = ((v << 1) ^ (v >> 31)) >>> 0;
  let n = 1;
  while (z >= 0x80) {
    z >>>= 7;
    n++;
  }
  return n;
}

function varlongSize(v: number): number {
  if (v >= -0x80000000 && v <= 0x7fffffff && Number.isInteger(v)) return varintSize(v);
  let z = BigInt.asUintN(64, (BigInt(v) << 1n) ^ (BigInt(v) >> 63n));
  let n = 1;
  while (z >= 0x80n) {
    z >>= 7n;
    n++;
  }
  return n;
}

function varBytesSize(b: Buffer | null): number {
  return b === null ? 1 : varintSize(b.length) + b.length;
}

function writeVarBytes(w: Writer, b: Buffer | null): void {
  if (b === null) w.varint(-1);
  else w.varint(b.length).raw(b);
}

/** Builds one RecordBatch v2 with offset deltas, timestamp deltas and the CRC-32C filled in. */
export function encodeRecordBatch(input: RecordBatchInput): Buffer {
  const { records, firstTimestamp } = input;
  const body = new Writer(1024);
  let maxTimestamp = firstTimestamp;
  for (let i = 0; i < records.length; i++) {
    const record = records[i]!;
    if (record.timestamp > maxTimestamp) maxTimestamp = record.timestamp;
    writeRecord(body, record, record.offsetDelta ?? i, firstTimestamp);
  }
  let recordBytes = body.toBuffer();
  if (input.compression !== CompressionType.none) recordBytes = compressionCodec(input.compression).compress(recordBytes);

  let attributes = input.compression & Attributes.compressionMask;
  if (input.timestampType === 1) attributes |= Attributes.timestampTypeLogAppend;
  if (input.isTransactional) attributes |= Attributes.transactional;
  if (input.isControl) attributes |= Attributes.control;

  const size = BATCH_HEADER_SIZE + recordBytes.length;
  const buf = Buffer.allocUnsafe(size);
  buf.writeBigInt64BE(BigInt(input.baseOffset), O.baseOffset);
  buf.writeInt32BE(size - BATCH_LOG_OVERHEAD, O.batchLength);
  buf.writeInt32BE(input.partitionLeaderEpoch ?? -1, O.partitionLeaderEpoch);
  buf.writeInt8(CURRENT_MAGIC, O.magic);
  buf.writeInt16BE(attributes, O.attributes);
  buf.writeInt32BE(input.lastOffsetDelta ?? records.length - 1, O.lastOffsetDelta);
  buf.writeBigInt64BE(BigInt(firstTimestamp), O.firstTimestamp);
  buf.writeBigInt64BE(BigInt(maxTimestamp), O.maxTimestamp);
  buf.writeBigInt64BE(BigInt(input.producerId ?? -1), O.producerId);
  buf.writeInt16BE(input.producerEpoch ?? -1, O.producerEpoch);
  buf.writeInt32BE(input.baseSequence ?? -1, O.baseSequence);
  buf.writeInt32BE(records.length, O.recordCount);
  recordBytes.copy(buf, O.records);
  buf.writeUInt32BE(crc32c(buf.subarray(O.attributes)) >>> 0, O.crc);
  return buf;
}
