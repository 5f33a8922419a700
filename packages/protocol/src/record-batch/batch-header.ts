/**
 * RecordBatch v2 (magic 2) header layout. The storage layer and the broker work on batches as
 * opaque byte ranges and only ever touch these fields.
 *
 *   0 baseOffset i64 | 8 batchLength i32 | 12 partitionLeaderEpoch i32 | 16 magic i8 | 17 crc u32
 *   21 attributes i16 | 23 lastOffsetDelta i32 | 27 firstTimestamp i64 | 35 maxTimestamp i64
 *   43 producerId i64 | 51 producerEpoch i16 | 53 baseSequence i32 | 57 recordCount i32 | 61 records
 *
 * The CRC-32C covers bytes 21..end, so baseOffset and partitionLeaderEpoch can be rewritten
 * without recomputing it.
 */
export const BATCH_HEADER_SIZE = 61;
/** baseOffset + batchLength: the bytes not counted by batchLength. */
export const BATCH_LOG_OVERHEAD = 12;
export const CURRENT_MAGIC = 2;

export const BatchOffsets = {
  baseOffset: 0,
  batchLength: 8,
  partitionLeaderEpoch: 12,
  magic: 16,
  crc: 17,
  attributes: 21,
  lastOffsetDelta: 23,
  firstTimestamp: 27,
  maxTimestamp: 35,
  producerId: 43,
  producerEpoch: 51,
  baseSequence: 53,
  recordCount: 57,
  records: 61,
} as const;

export const CompressionType = { none: 0, gzip: 1, snappy: 2, lz4: 3, zstd: 4 } as const;
export type CompressionCodec = (typeof CompressionType)[keyof typeof CompressionType];

export const Attributes = {
  compressionMask: 0x07,
  timestampTypeLogAppend: 0x08,
  transactional: 0x10,
  control: 0x20,
} as const;
