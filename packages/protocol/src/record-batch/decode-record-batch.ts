import { CorruptDataError, ErrorCode, GregorError } from '@gregor/common';
import { Reader } from '../primitives/reader.js';
import { BatchOffsets as O, CompressionType } from './batch-header.js';
import { forEachBatch, readBatchHeader, validateBatch, type BatchHeader } from './batch-view.js';
import { compressionCodec, DEFAULT_MAX_DECOMPRESSED_BYTES } from './compression.js';
import type { DecodedRecord, RecordHeader } from './record.js';

export interface DecodedRecordBatch extends BatchHeader {
  records: DecodedRecord[];
}

export interface DecodeRecordBatchOptions {
  /** Check the CRC-32C before decoding (default true). */
  verifyCrc?: boolean;
  /**
   * The most a compressed batch's records may inflate to (default DEFAULT_MAX_DECOMPRESSED_BYTES, 50 MiB);
   * past it the batch is a CorruptDataError. Readers pass a bound derived from their batch limits.
   */
  maxDecompressedBytes?: number;
}

function readVarBytes(r: Reader): Buffer | null {
  const len = r.varint();
  if (len < -1) throw new CorruptDataError(`invalid record field length ${len}`);
  return len === -1 ? null : r.raw(len);
}

function readRecord(r: Reader, header: BatchHeader): DecodedRecord {
  const length = r.varint();
  if (length < 0 || length > r.remaining) throw new CorruptDataError(`record length ${length} exceeds the ${r.remaining} bytes left`);
  const end = r.position + length;
  r.int8(); // record attributes: unused
  const timestampDelta = r.varlong();
  const offsetDelta = r.varint();
  const key = readVarBytes(r);
  const value = readVarBytes(r);
  const headerCount = r.varint();
  if (headerCount < 0 || headerCount * 2 > end - r.position) throw new CorruptDataError(`invalid record header count ${headerCount}`);
  const headers: RecordHeader[] = new Array(headerCount);
  for (let i = 0; i < headerCount; i++) {
    const keyBytes = readVarBytes(r);
    if (keyBytes === null) throw new CorruptDataError('null record header key');
    headers[i] = { key: keyBytes.toString('utf8'), value: readVarBytes(r) };
  }
  if (r.position !== end) throw new CorruptDataError(`record declares ${length} bytes but its fields take ${length + r.position - end}`);
  return {
    offset: header.baseOffset + offsetDelta,
    // With LogAppendTime the broker's append time (maxTimestamp) applies to every record.
    timestamp: header.timestampType === 1 ? header.maxTimestamp : header.firstTimestamp + timestampDelta,
    key,
    value,
    headers,
  };
}

/** Decodes the batch at `pos`, decompressing its records through the codec registry. */
export function decodeRecordBatch(buf: Buffer, pos = 0, options: DecodeRecordBatchOptions = {}): DecodedRecordBatch {
  const header = options.verifyCrc === false ? readBatchHeader(buf, pos) : validateBatch(buf, pos);
  const end = pos + header.sizeInBytes;
  if (end > buf.length) throw new CorruptDataError(`record batch at ${pos} truncated`);
  let data = buf.subarray(pos + O.records, end);
  if (header.compression !== CompressionType.none) {
    const codec = compressionCodec(header.compression);
    try {
      data = codec.decompress(data, options.maxDecompressedBytes ?? DEFAULT_MAX_DECOMPRESSED_BYTES);
    } catch (err) {
      if (err instanceof GregorError && err.code === ErrorCode.UNSUPPORTED_COMPRESSION_TYPE) throw err;
      throw new CorruptDataError(`record batch at ${pos} (base offset ${header.baseOffset}) cannot be decompressed: ${(err as Error).message}`, { cause: err });
    }
  }
  const r = new Reader(data);
  if (header.recordCount < 0 || header.recordCount > data.length) throw new CorruptDataError(`invalid record count ${header.recordCount}`);
  const records: DecodedRecord[] = new Array(header.recordCount);
  for (let i = 0; i < header.recordCount; i++) records[i] = readRecord(r, header);
  if (r.remaining !== 0) throw new CorruptDataError(`record batch at ${pos} has ${r.remaining} bytes after its ${header.recordCount} records`);
  return { ...header, records };
}

/** Decodes every batch of a record set (a partial last batch, as fetch responses may end with, is skipped). */
export function decodeRecordSet(buf: Buffer, options: DecodeRecordBatchOptions = {}): DecodedRecordBatch[] {
  const batches: DecodedRecordBatch[] = [];
  forEachBatch(buf, (_header, position) => void batches.push(decodeRecordBatch(buf, position, options)), { allowPartialTail: true });
  return batches;
}

/**
 * Decodes the batches of a record set in order up to the first one that cannot be decoded (corrupt, or
 * inflating past the cap), as Kafka's consumer hands out the records before a corrupt batch and fails only
 * when that batch is next. `error` is that batch's CorruptDataError, or null when every batch decoded.
 */
export function decodeRecordSetPrefix(buf: Buffer, options: DecodeRecordBatchOptions = {}): { batches: DecodedRecordBatch[]; error: CorruptDataError | null } {
  const batches: DecodedRecordBatch[] = [];
  let error: CorruptDataError | null = null;
  try {
    forEachBatch(
      buf,
      (_header, position) => {
        batches.push(decodeRecordBatch(buf, position, options));
      },
      { allowPartialTail: true },
    );
  } catch (err) {
    if (!(err instanceof CorruptDataError)) throw err;
    error = err;
  }
  return { batches, error };
}
