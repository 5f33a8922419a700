import { CorruptDataError, ErrorCode, GregorError } from '@gregor/common';
import { bufferView } from '../primitives/buffer-view.js';
import { BatchOffsets as O, CompressionType } from './batch-header.js';
import { forEachBatch, readBatchHeader, validateBatch, type BatchHeader } from './batch-view.js';
import { compressionCodec, DEFAULT_MAX_DECOMPRESSED_BYTES } from './compression.js';
import type { DecodedRecord, RecordHeader } from './record.js';
import { RecordWalker, walkedRecordHeaders, type WalkedRecord } from './record-walk.js';

export interface DecodedRecordBatch<R = DecodedRecord> extends BatchHeader {
  records: R[];
}

/**
 * Builds the object a decoder hands out for one record. A consumer passes one that builds its own record type (with
 * topic and partition), so each record is one object rather than a DecodedRecord copied into another.
 */
export type RecordFactory<R> = (offset: number, timestamp: number, key: Buffer | null, value: Buffer | null, headers: RecordHeader[]) => R;

const decodedRecord: RecordFactory<DecodedRecord> = (offset, timestamp, key, value, headers) => ({ offset, timestamp, key, value, headers });

export interface DecodeRecordBatchOptions {
  /** Check the CRC-32C before decoding (default true). */
  verifyCrc?: boolean;
  /**
   * The most a compressed batch's records may inflate to (default DEFAULT_MAX_DECOMPRESSED_BYTES, 50 MiB);
   * past it the batch is a CorruptDataError. Readers pass a bound derived from their batch limits.
   */
  maxDecompressedBytes?: number;
}

/** Decodes the batch at `pos`, decompressing its records through the codec registry. */
export function decodeRecordBatch(buf: Buffer, pos = 0, options: DecodeRecordBatchOptions = {}): DecodedRecordBatch {
  return decodeRecordBatchWith(buf, pos, options, decodedRecord);
}

/** decodeRecordBatch, each record built by `make`. */
export function decodeRecordBatchWith<R>(buf: Buffer, pos: number, options: DecodeRecordBatchOptions, make: RecordFactory<R>): DecodedRecordBatch<R> {
  const { header, data } = openRecordBatch(buf, pos, options);
  const records: R[] = new Array(header.recordCount);
  const fields = data;
  const walker = new RecordWalker(fields, 0, fields.length, header.recordCount);
  const r = walker.record;
  while (walker.next()) records[r.index] = buildWalkedRecord(header, fields, r, make);
  return { ...header, records };
}

/** The record `r` walked in a batch's (decompressed) records section, built by `make`. */
export function buildWalkedRecord<R>(header: BatchHeader, data: Buffer, r: WalkedRecord, make: RecordFactory<R>): R {
  return make(
    header.baseOffset + r.offsetDelta,
    // With LogAppendTime the broker's append time (maxTimestamp) applies to every record.
    header.timestampType === 1 ? header.maxTimestamp : header.firstTimestamp + r.timestampDelta,
    r.keyLength < 0 ? null : bufferView(data, r.keyStart, r.keyLength),
    r.valueLength < 0 ? null : bufferView(data, r.valueStart, r.valueLength),
    walkedRecordHeaders(data, r),
  );
}

/**
 * The batch at `pos`, checked (CRC unless turned off, length, record count) and its records section decompressed
 * under the cap: what a decoder walks. A CorruptDataError when any of that fails.
 */
export function openRecordBatch(buf: Buffer, pos: number, options: DecodeRecordBatchOptions): { header: BatchHeader; data: Buffer } {
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
  if (header.recordCount < 0 || header.recordCount > data.length) throw new CorruptDataError(`invalid record count ${header.recordCount}`);
  return { header, data };
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
  return decodeRecordSetPrefixWith(buf, options, decodedRecord);
}

/** decodeRecordSetPrefix, each record built by `make`. */
export function decodeRecordSetPrefixWith<R>(buf: Buffer, options: DecodeRecordBatchOptions, make: RecordFactory<R>): { batches: DecodedRecordBatch<R>[]; error: CorruptDataError | null } {
  const batches: DecodedRecordBatch<R>[] = [];
  let error: CorruptDataError | null = null;
  try {
    forEachBatch(
      buf,
      (_header, position) => {
        batches.push(decodeRecordBatchWith(buf, position, options, make));
      },
      { allowPartialTail: true },
    );
  } catch (err) {
    if (!(err instanceof CorruptDataError)) throw err;
    error = err;
  }
  return { batches, error };
}
