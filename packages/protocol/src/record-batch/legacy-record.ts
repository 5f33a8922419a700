import { crc32 } from '@node-rs/crc32';
import { CorruptDataError, ErrorCode, GregorError } from '@gregor/common';
import { Attributes, CompressionType } from './batch-header.js';
import { readInt64Number } from '../primitives/int64.js';

/**
 * Message formats v0 and v1 (Kafka's LegacyRecord): a message set is entries back to back, no count.
 *
 *   0 offset i64 | 8 message_size i32 | 12 crc u32 | 16 magic i8 | 17 attributes i8
 *   v1 only: 18 timestamp i64 | then key (i32 length, -1 = null) | value (i32 length, -1 = null)
 *
 * The CRC is CRC-32 (IEEE, as zlib), not RecordBatch v2's CRC-32C, over magic..end of the value.
 * Attributes: bits 0-2 the codec (zstd is not allowed here), bit 3 (v1) LogAppendTime.
 */
export const LEGACY_LOG_OVERHEAD = 12;
export const LegacyOffsets = { offset: 0, size: 8, crc: 12, magic: 16, attributes: 17, timestamp: 18 } as const;
/** The smallest message size field (v0 overhead): crc, magic, attributes, key and value lengths. */
export const LEGACY_MIN_MESSAGE_SIZE = 14;

/** crc + magic + attributes (+ timestamp in v1) + key length + value length. */
export function legacyRecordOverhead(magic: number): number {
  return magic === 0 ? 14 : 22;
}

/** One entry of a v0/v1 message set as it sits in the bytes (a plain message or a compressed wrapper). */
export interface LegacyEntry {
  /** The offset field: absolute, or for an inner message of a v1 wrapper relative to the wrapper's first. */
  offset: number;
  /** Byte position of the entry in the buffer it was read from. */
  position: number;
  /** offset + size fields + message. */
  sizeInBytes: number;
  magic: 0 | 1;
  crc: number;
  attributes: number;
  compression: number;
  /** 0 CreateTime, 1 LogAppendTime; v0 has no timestamp (reported as CreateTime with timestamp -1). */
  timestampType: number;
  /** -1 for v0. */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
}

/** CRC-32 over magic..end of the entry at `pos` that is `sizeInBytes` long. */
export function computeLegacyCrc(buf: Buffer, pos: number, sizeInBytes: number): number {
  return crc32(buf.subarray(pos + LegacyOffsets.magic, pos + sizeInBytes)) >>> 0;
}

function readLengthPrefixed(buf: Buffer, at: number, end: number, what: string, pos: number): { bytes: Buffer | null; next: number } {
  if (at + 4 > end) throw new CorruptDataError(`legacy message at ${pos}: ${what} length runs past the message`);
  const len = buf.readInt32BE(at);
  if (len === -1) return { bytes: null, next: at + 4 };
  if (len < 0 || at + 4 + len > end) throw new CorruptDataError(`legacy message at ${pos}: ${what} of ${len} bytes runs past the message`);
  return { bytes: buf.subarray(at + 4, at + 4 + len), next: at + 4 + len };
}

/**
 * Reads the whole entry at `pos` (the caller checked it is all there). A size below the v0 overhead or an
 * unknown magic is CORRUPT_MESSAGE; magic 2 (a RecordBatch) inside a legacy set is INVALID_RECORD, as Kafka
 * refuses batches whose magic differs from the first.
 */
export function readLegacyEntry(buf: Buffer, pos: number): LegacyEntry {
  const size = buf.readInt32BE(pos + LegacyOffsets.size);
  if (size < LEGACY_MIN_MESSAGE_SIZE) throw new CorruptDataError(`legacy message at ${pos}: size ${size} is below the minimum ${LEGACY_MIN_MESSAGE_SIZE}`);
  const end = pos + LEGACY_LOG_OVERHEAD + size;
  if (end > buf.length) throw new CorruptDataError(`legacy message at ${pos} truncated: needs ${size + LEGACY_LOG_OVERHEAD} bytes, ${buf.length - pos} present`);
  const magic = buf.readInt8(pos + LegacyOffsets.magic);
  if (magic === 2) throw new GregorError(ErrorCode.INVALID_RECORD, `a magic 2 batch at ${pos} in a message set of magic 0/1`);
  if (magic !== 0 && magic !== 1) throw new CorruptDataError(`legacy message at ${pos}: invalid magic ${magic}`);
  if (size < legacyRecordOverhead(magic)) throw new CorruptDataError(`legacy message at ${pos}: size ${size} is below the v${magic} overhead ${legacyRecordOverhead(magic)}`);
  const attributes = buf.readInt8(pos + LegacyOffsets.attributes);
  let at = pos + LegacyOffsets.timestamp;
  let timestamp = -1;
  if (magic === 1) {
    timestamp = readInt64Number(buf, at);
    at += 8;
  }
  const key = readLengthPrefixed(buf, at, end, 'key', pos);
  const value = readLengthPrefixed(buf, key.next, end, 'value', pos);
  if (value.next !== end) throw new CorruptDataError(`legacy message at ${pos}: ${end - value.next} bytes after the value`);
  return {
    offset: readInt64Number(buf, pos + LegacyOffsets.offset),
    position: pos,
    sizeInBytes: size + LEGACY_LOG_OVERHEAD,
    magic,
    crc: buf.readUInt32BE(pos + LegacyOffsets.crc),
    attributes,
    compression: attributes & Attributes.compressionMask,
    timestampType: magic === 1 && (attributes & Attributes.timestampTypeLogAppend) !== 0 ? 1 : 0,
    timestamp,
    key: key.bytes,
    value: value.bytes,
  };
}

/** True when the entry's stored CRC matches its bytes. */
export function legacyCrcMatches(buf: Buffer, entry: LegacyEntry): boolean {
  return computeLegacyCrc(buf, entry.position, entry.sizeInBytes) === entry.crc;
}

export interface LegacyMessageInput {
  offset: number;
  magic: 0 | 1;
  /** Codec bits and (v1) the LogAppendTime bit. */
  attributes: number;
  /** Ignored for v0. */
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
}

export function legacyEntrySize(magic: number, key: Buffer | null, value: Buffer | null): number {
  return LEGACY_LOG_OVERHEAD + legacyRecordOverhead(magic) + (key?.length ?? 0) + (value?.length ?? 0);
}

/** Writes one entry at `pos` (the buffer has room: legacyEntrySize) with its CRC; returns the position after it. */
export function writeLegacyEntry(buf: Buffer, pos: number, m: LegacyMessageInput): number {
  if ((m.attributes & Attributes.compressionMask) === CompressionType.zstd) {
    throw new GregorError(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, 'zstd cannot be used with message format v0/v1');
  }
  const size = legacyEntrySize(m.magic, m.key, m.value);
  buf.writeBigInt64BE(BigInt(m.offset), pos + LegacyOffsets.offset);
  buf.writeInt32BE(size - LEGACY_LOG_OVERHEAD, pos + LegacyOffsets.size);
  buf.writeInt8(m.magic, pos + LegacyOffsets.magic);
  buf.writeInt8(m.magic === 0 ? m.attributes & Attributes.compressionMask : m.attributes, pos + LegacyOffsets.attributes);
  let at = pos + LegacyOffsets.timestamp;
  if (m.magic === 1) {
    buf.writeBigInt64BE(BigInt(m.timestamp), at);
    at += 8;
  }
  for (const field of [m.key, m.value]) {
    if (field === null) {
      buf.writeInt32BE(-1, at);
      at += 4;
    } else {
      buf.writeInt32BE(field.length, at);
      field.copy(buf, at + 4);
      at += 4 + field.length;
    }
  }
  buf.writeUInt32BE(computeLegacyCrc(buf, pos, size), pos + LegacyOffsets.crc);
  return at;
}
