import { CorruptDataError, ErrorCode, GregorError } from '@gregor/common';
import { Attributes, CompressionType } from './batch-header.js';
import { compressionCodec, DEFAULT_MAX_DECOMPRESSED_BYTES } from './compression.js';
import {
  LEGACY_LOG_OVERHEAD,
  LEGACY_MIN_MESSAGE_SIZE,
  LegacyOffsets,
  legacyCrcMatches,
  legacyEntrySize,
  readLegacyEntry,
  writeLegacyEntry,
  type LegacyEntry,
} from './legacy-record.js';

export interface ForEachLegacyEntryOptions {
  /** Stop quietly at an incomplete last entry (fetch responses, and produce requests, may end with one). */
  allowPartialTail?: boolean;
}

/**
 * Calls `fn` for each top-level entry (a message or a compressed wrapper) of a v0/v1 message set, as
 * Kafka's ByteBufferLogInputStream reads them: a size below 14 or a bad magic is corrupt, an incomplete last
 * entry ends the set. Returns the bytes covered by complete entries. `fn` may return false to stop early.
 */
export function forEachLegacyEntry(buf: Buffer, fn: (entry: LegacyEntry) => void | boolean, options: ForEachLegacyEntryOptions = {}): number {
  let pos = 0;
  while (pos < buf.length) {
    const remaining = buf.length - pos;
    const partial = (what: string): number => {
      if (options.allowPartialTail) return pos;
      throw new CorruptDataError(`message set ends with an incomplete entry at ${pos} (${what})`);
    };
    if (remaining < LEGACY_LOG_OVERHEAD) return partial(`${remaining} bytes`);
    const size = buf.readInt32BE(pos + LegacyOffsets.size);
    if (size < LEGACY_MIN_MESSAGE_SIZE) throw new CorruptDataError(`legacy message at ${pos}: size ${size} is below the minimum ${LEGACY_MIN_MESSAGE_SIZE}`);
    if (remaining <= LegacyOffsets.magic) return partial('no magic');
    const magic = buf.readInt8(pos + LegacyOffsets.magic);
    if (magic < 0 || magic > 2) throw new CorruptDataError(`legacy message at ${pos}: invalid magic ${magic}`);
    if (remaining < LEGACY_LOG_OVERHEAD + size) return partial(`needs ${LEGACY_LOG_OVERHEAD + size} bytes, ${remaining} present`);
    const entry = readLegacyEntry(buf, pos);
    pos += entry.sizeInBytes;
    if (fn(entry) === false) return pos;
  }
  return pos;
}

export interface DecodeMessageSetOptions {
  /** Check each message's CRC-32 (default true): top-level entries, and the inner messages of wrappers. */
  verifyCrc?: boolean;
  /** The most a wrapper's value may inflate to (default DEFAULT_MAX_DECOMPRESSED_BYTES). */
  maxDecompressedBytes?: number;
}

/**
 * The inner entries of a compressed wrapper, their offset fields as written (v0 absolute, v1 relative).
 * Kafka's DeepRecordsIterator rules: zstd and a null value are INVALID_RECORD, as is a wrapper holding
 * nothing; an incomplete last inner entry ends the set; the data must decompress within the cap.
 */
export function readInnerEntries(wrapper: LegacyEntry, options: DecodeMessageSetOptions = {}): { inner: LegacyEntry[]; data: Buffer } {
  if (wrapper.compression === CompressionType.zstd) {
    throw new GregorError(ErrorCode.INVALID_RECORD, `legacy wrapper at ${wrapper.position} uses zstd, which message format v${wrapper.magic} does not allow`);
  }
  if (wrapper.compression > CompressionType.zstd) throw new CorruptDataError(`legacy wrapper at ${wrapper.position}: unknown codec ${wrapper.compression}`);
  if (wrapper.value === null) throw new GregorError(ErrorCode.INVALID_RECORD, `compressed legacy wrapper at ${wrapper.position} has a null value`);
  let data: Buffer;
  try {
    data = compressionCodec(wrapper.compression).decompress(wrapper.value, options.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES, { magic: wrapper.magic });
  } catch (err) {
    if (err instanceof CorruptDataError) throw err;
    throw new CorruptDataError(`legacy wrapper at ${wrapper.position} cannot be decompressed: ${(err as Error).message}`, { cause: err });
  }
  const inner: LegacyEntry[] = [];
  forEachLegacyEntry(data, (e) => void inner.push(e), { allowPartialTail: true });
  if (inner.length === 0) throw new GregorError(ErrorCode.INVALID_RECORD, `compressed legacy wrapper at ${wrapper.position} holds no messages`);
  return { inner, data };
}

/** One message of a v0/v1 set after unwrapping: the absolute offset and the timestamp readers see. */
export interface LegacyRecord {
  offset: number;
  magic: 0 | 1;
  /** 0 CreateTime, 1 LogAppendTime (v1 wrappers with LogAppendTime give their timestamp to every inner message). */
  timestampType: number;
  /** -1 for v0. */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  /** The codec of the wrapper the message came in (0 when it was not compressed). */
  compression: number;
}

/**
 * Unwraps one top-level entry into its messages with absolute offsets (Kafka's AbstractLegacyRecordBatch):
 * v0 inner offsets are absolute; v1 inner offsets are relative and the wrapper carries the last one's
 * absolute offset, except that a wrapper offset of 0 means base 0 (what some librdkafka versions produce).
 * Readers do not insist that inner messages have the wrapper's magic (the producer-side check is
 * upConvertMessageSet's); a v1 LogAppendTime wrapper's timestamp applies to its v1 inner messages.
 */
export function decodeLegacyEntry(buf: Buffer, entry: LegacyEntry, options: DecodeMessageSetOptions = {}): LegacyRecord[] {
  const verify = options.verifyCrc !== false;
  if (verify && !legacyCrcMatches(buf, entry)) throw new CorruptDataError(`legacy message at ${entry.position} (offset ${entry.offset}) fails its CRC-32`);
  if (entry.compression === CompressionType.none) {
    return [{ offset: entry.offset, magic: entry.magic, timestampType: entry.timestampType, timestamp: entry.timestamp, key: entry.key, value: entry.value, compression: 0 }];
  }
  const { inner, data } = readInnerEntries(entry, options);
  let base = 0;
  if (entry.magic === 1) {
    const lastInner = inner[inner.length - 1]!.offset;
    if (entry.offset !== 0) {
      if (entry.offset < lastInner) throw new GregorError(ErrorCode.INVALID_RECORD, `v1 wrapper offset ${entry.offset} is below its last inner offset ${lastInner}`);
      base = entry.offset - lastInner;
    }
  }
  return inner.map((m): LegacyRecord => {
    if (m.compression !== CompressionType.none) throw new GregorError(ErrorCode.INVALID_RECORD, 'inner messages of a compressed wrapper must not be compressed');
    if (verify && !legacyCrcMatches(data, m)) throw new CorruptDataError(`inner message (offset ${m.offset}) of the wrapper at ${entry.position} fails its CRC-32`);
    const logAppend = m.magic === 1 && entry.timestampType === 1;
    return {
      offset: entry.magic === 1 ? base + m.offset : m.offset,
      magic: m.magic,
      timestampType: logAppend ? 1 : m.timestampType,
      timestamp: logAppend ? entry.timestamp : m.timestamp,
      key: m.key,
      value: m.value,
      compression: entry.compression,
    };
  });
}

/** Every message of a v0/v1 message set, wrappers unwrapped; an incomplete last entry is skipped. */
export function decodeMessageSet(buf: Buffer, options: DecodeMessageSetOptions = {}): LegacyRecord[] {
  const out: LegacyRecord[] = [];
  forEachLegacyEntry(buf, (e) => void out.push(...decodeLegacyEntry(buf, e, options)), { allowPartialTail: true });
  return out;
}

export interface MessageSetInput {
  magic: 0 | 1;
  /** none, gzip, snappy or lz4 (zstd is UNSUPPORTED_COMPRESSION_TYPE). Compressed: one wrapper for all records. */
  compression: number;
  /** v1: 0 CreateTime (default), 1 LogAppendTime. */
  timestampType?: number;
  /** v1 LogAppendTime: the time every message (and the wrapper) carries. */
  logAppendTime?: number;
  records: readonly { offset: number; timestamp: number; key: Buffer | null; value: Buffer | null }[];
}

/**
 * Builds a v0/v1 message set as Kafka's MemoryRecordsBuilder does: uncompressed, one message per record at its
 * own offset; compressed, one wrapper (key null) at the last record's offset whose value holds the records
 * compressed, with absolute inner offsets in v0 and offsets relative to the first record in v1, and in v1 the
 * wrapper timestamp the largest inner one (LogAppendTime: the append time).
 */
export function encodeMessageSet(input: MessageSetInput): Buffer {
  const { magic, records } = input;
  if (records.length === 0) return Buffer.alloc(0);
  if (input.compression === CompressionType.zstd) throw new GregorError(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `zstd cannot be used with message format v${magic}`);
  const logAppend = magic === 1 && input.timestampType === 1;
  const typeBit = logAppend ? Attributes.timestampTypeLogAppend : 0;
  const timestampOf = (ts: number): number => (logAppend ? (input.logAppendTime ?? -1) : ts);
  const compressed = input.compression !== CompressionType.none;
  const firstOffset = records[0]!.offset;
  let size = 0;
  for (const r of records) size += legacyEntrySize(magic, r.key, r.value);
  const set = Buffer.allocUnsafe(size);
  let pos = 0;
  let maxTimestamp = -1;
  for (const r of records) {
    const timestamp = timestampOf(r.timestamp);
    if (timestamp > maxTimestamp) maxTimestamp = timestamp;
    const offset = compressed && magic === 1 ? r.offset - firstOffset : r.offset;
    pos = writeLegacyEntry(set, pos, { offset, magic, attributes: typeBit, timestamp, key: r.key, value: r.value });
  }
  if (!compressed) return set;
  const value = compressionCodec(input.compression).compress(set, { magic });
  const wrapper = Buffer.allocUnsafe(legacyEntrySize(magic, null, value));
  writeLegacyEntry(wrapper, 0, {
    offset: records[records.length - 1]!.offset,
    magic,
    attributes: input.compression | typeBit,
    timestamp: logAppend ? (input.logAppendTime ?? -1) : maxTimestamp,
    key: null,
    value,
  });
  return wrapper;
}
