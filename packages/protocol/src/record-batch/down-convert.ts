import { ErrorCode, GregorError } from '@gregor/common';
import { CompressionType } from './batch-header.js';
import { forEachBatch } from './batch-view.js';
import { decodeRecordBatch } from './decode-record-batch.js';
import { encodeMessageSet } from './message-set.js';

export interface DownConvertOptions {
  /** Cap on what one compressed batch may inflate to (default: decodeRecordBatch's). */
  maxDecompressedBytes?: number;
}

/**
 * RecordBatch v2 record set → message format v0 or v1, as Kafka's RecordsUtil.downConvert does for old
 * fetchers: control batches are dropped; a zstd batch is UNSUPPORTED_COMPRESSION_TYPE when it comes first and ends
 * the converted set otherwise; an uncompressed batch becomes
 * one message per record, without the records below `firstOffset` (the fetch offset: librdkafka relies on not
 * being handed records before it); a compressed batch becomes one wrapper with the same codec holding all its
 * records; headers are dropped; v1 keeps timestamps (a LogAppendTime batch keeps the type, with the batch's
 * max timestamp as every message's), v0 has none. An incomplete last batch (a byte-bounded read) is skipped.
 */
export function downConvertRecordSet(records: Buffer, toMagic: 0 | 1, firstOffset: number, options: DownConvertOptions = {}): Buffer {
  const parts: Buffer[] = [];
  forEachBatch(
    records,
    (header, position) => {
      if (header.isControl) return;
      if (header.compression === CompressionType.zstd) {
        // What came before it still goes out: the client progresses up to the zstd batch, then gets the error.
        if (parts.length > 0) return false;
        throw new GregorError(ErrorCode.UNSUPPORTED_COMPRESSION_TYPE, `a zstd batch (offset ${header.baseOffset}) cannot be converted to message format v${toMagic}`);
      }
      const batch = decodeRecordBatch(records, position, { maxDecompressedBytes: options.maxDecompressedBytes });
      const compressed = header.compression !== CompressionType.none;
      const kept = compressed ? batch.records : batch.records.filter((r) => r.offset >= firstOffset);
      if (kept.length === 0) return;
      const logAppend = header.timestampType === 1;
      parts.push(
        encodeMessageSet({
          magic: toMagic,
          compression: header.compression,
          timestampType: header.timestampType,
          logAppendTime: logAppend ? header.maxTimestamp : undefined,
          records: kept,
        }),
      );
    },
    { allowPartialTail: true },
  );
  return parts.length === 1 ? parts[0]! : Buffer.concat(parts);
}
