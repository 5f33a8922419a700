import { CorruptDataError, ErrorCode, GregorError } from '@gregor/common';
import { CompressionType, type CompressionCodec } from './batch-header.js';
import { encodeRecordBatch } from './encode-record-batch.js';
import { legacyCrcMatches, type LegacyEntry } from './legacy-record.js';
import { forEachLegacyEntry, readInnerEntries } from './message-set.js';
import type { RecordInput } from './record.js';

export interface UpConvertOptions {
  /** The topic's max.message.bytes: each top-level entry larger than this is MESSAGE_TOO_LARGE. */
  maxMessageBytes: number;
  /** Cap on what a compressed wrapper may inflate to (default: the codecs' 50 MiB). */
  maxDecompressedBytes?: number;
}

export interface UpConverted {
  /** One RecordBatch v2 (base offset 0) holding every message, or empty when the set held none. */
  batch: Buffer;
  /** How many messages it holds. */
  records: number;
  /** The codec of the producer's set (and of the batch). */
  compression: number;
}

function invalid(message: string): GregorError {
  return new GregorError(ErrorCode.INVALID_RECORD, message);
}

function refuseLogAppendTime(entry: LegacyEntry): void {
  if (entry.timestampType === 1) throw new GregorError(ErrorCode.INVALID_TIMESTAMP, 'producers must not set the LogAppendTime timestamp type');
}

/**
 * A producer's v0/v1 message set (Produce v0–v2) → one RecordBatch v2, with Kafka's checks (Log.analyzeAndValidateRecords
 * and LogValidator, target magic 2):
 * - each top-level entry: larger than max.message.bytes → MESSAGE_TOO_LARGE; CRC-32 mismatch → CORRUPT_MESSAGE;
 *   a magic different from the first entry's → INVALID_RECORD; an incomplete last entry is silently dropped;
 * - if any entry is compressed the set must be that one wrapper (INVALID_RECORD); its inner messages must be
 *   uncompressed, of the wrapper's magic (INVALID_RECORD), with valid CRCs (CORRUPT_MESSAGE) and, in v1, the
 *   relative offsets 0, 1, 2… (INVALID_RECORD); zstd is not a v0/v1 codec (INVALID_RECORD);
 * - a producer may not set LogAppendTime (INVALID_TIMESTAMP).
 * v1 timestamps are kept, v0 messages get -1 (the log stamps LogAppendTime topics itself); a compressed set
 * becomes one batch compressed with the same codec. Producer id, epoch and sequence are none (-1).
 */
export function upConvertMessageSet(set: Buffer, options: UpConvertOptions): UpConverted {
  const entries: LegacyEntry[] = [];
  let compression: number = CompressionType.none;
  forEachLegacyEntry(
    set,
    (e) => {
      if (e.sizeInBytes > options.maxMessageBytes) {
        throw new GregorError(ErrorCode.MESSAGE_TOO_LARGE, `message of ${e.sizeInBytes} bytes exceeds max.message.bytes ${options.maxMessageBytes}`);
      }
      if (!legacyCrcMatches(set, e)) throw new CorruptDataError(`message at byte ${e.position} fails its CRC-32`);
      if (entries.length > 0 && e.magic !== entries[0]!.magic) throw invalid(`message magic ${e.magic} differs from the first message's ${entries[0]!.magic}`);
      if (e.compression !== CompressionType.none) compression = e.compression;
      entries.push(e);
    },
    { allowPartialTail: true },
  );
  if (entries.length === 0) return { batch: Buffer.alloc(0), records: 0, compression };

  const records: RecordInput[] = [];
  const add = (m: LegacyEntry): void => void records.push({ key: m.key, value: m.value, headers: [], timestamp: m.magic === 0 ? -1 : m.timestamp });
  if (compression === CompressionType.none) {
    for (const e of entries) {
      refuseLogAppendTime(e);
      add(e);
    }
  } else {
    if (entries.length !== 1) throw invalid(`a compressed message set must be one wrapper, got ${entries.length} top-level messages`);
    const wrapper = entries[0]!;
    refuseLogAppendTime(wrapper);
    const { inner, data } = readInnerEntries(wrapper, { maxDecompressedBytes: options.maxDecompressedBytes });
    inner.forEach((m, i) => {
      if (m.compression !== CompressionType.none) throw invalid(`inner message ${i} of the wrapper is itself compressed`);
      if (m.magic !== wrapper.magic) throw invalid(`inner message ${i} has magic ${m.magic}, its wrapper ${wrapper.magic}`);
      if (!legacyCrcMatches(data, m)) throw new CorruptDataError(`inner message ${i} of the wrapper fails its CRC-32`);
      refuseLogAppendTime(m);
      if (wrapper.magic === 1 && m.offset !== i) throw invalid(`inner message ${i} of a v1 wrapper has relative offset ${m.offset}, expected ${i}`);
      add(m);
    });
  }
  const batch = encodeRecordBatch({ baseOffset: 0, compression: compression as CompressionCodec, firstTimestamp: records[0]!.timestamp, records });
  return { batch, records: records.length, compression };
}
