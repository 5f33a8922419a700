import {
  Attributes,
  BATCH_HEADER_SIZE,
  BATCH_LOG_OVERHEAD,
  BatchOffsets,
  CompressionType,
  compressionCodec,
  computeBatchCrc,
  Reader,
  Writer,
  type BatchHeader,
} from '@gregor/protocol';

/** Topic `compression.type` (Kafka's BrokerCompressionCodec names): `producer` keeps the producer's codec. */
export const TOPIC_COMPRESSION_TYPES = ['producer', 'uncompressed', 'gzip', 'snappy', 'lz4', 'zstd'] as const;
export type TopicCompressionType = (typeof TOPIC_COMPRESSION_TYPES)[number];

const CODEC_OF: Record<Exclude<TopicCompressionType, 'producer'>, number> = {
  uncompressed: CompressionType.none,
  gzip: CompressionType.gzip,
  snappy: CompressionType.snappy,
  lz4: CompressionType.lz4,
  zstd: CompressionType.zstd,
};

/** Kafka's BrokerCompressionCodec.getTargetCompressionCodec: the codec the leader stores a producer's batch in. */
export function targetCompression(topic: TopicCompressionType | undefined, source: number): number {
  return topic === undefined || topic === 'producer' ? source : CODEC_OF[topic];
}

/**
 * Kafka's LogValidator.buildRecordsAndAssignOffsets for one v2 batch whose codec is not the topic's: the same
 * records in a new batch compressed with `target`. Producer id, epoch, base sequence, record count, the
 * transactional bit and the timestamps are kept; offsets and the leader epoch are stamped afterwards, as for
 * any leader append. `records` is the batch's records section inflated (what validation walked), its offset
 * deltas already checked to be 0,1,2,... As Kafka's MemoryRecordsBuilder does, the new batch's first timestamp
 * is its first record's (in practice the producer's first timestamp already), with the deltas rebased on it.
 */
export function recompressBatch(original: Buffer, b: BatchHeader, records: Buffer, target: number, maxTimestamp: number): Buffer {
  const shift = b.recordCount > 0 ? firstTimestampDelta(records) : 0;
  const body = shift === 0 ? records : rebaseTimestamps(records, b.recordCount, shift);
  const payload = target === CompressionType.none ? body : compressionCodec(target).compress(body);
  const out = Buffer.allocUnsafe(BATCH_HEADER_SIZE + payload.length);
  original.copy(out, 0, b.position, b.position + BATCH_HEADER_SIZE);
  payload.copy(out, BATCH_HEADER_SIZE);
  out.writeInt32BE(out.length - BATCH_LOG_OVERHEAD, BatchOffsets.batchLength);
  out.writeInt16BE((b.attributes & ~Attributes.compressionMask) | target, BatchOffsets.attributes);
  out.writeBigInt64BE(BigInt(b.firstTimestamp + shift), BatchOffsets.firstTimestamp);
  out.writeBigInt64BE(BigInt(maxTimestamp), BatchOffsets.maxTimestamp);
  out.writeUInt32BE(computeBatchCrc(out, 0, out.length), BatchOffsets.crc);
  return out;
}

/** The first record's timestamp delta (records: length varint | attributes i8 | timestampDelta varlong | ...). */
function firstTimestampDelta(records: Buffer): number {
  const r = new Reader(records);
  r.varint();
  r.int8();
  return r.varlong();
}

/** Every record's timestamp delta lowered by `shift`; the rest of each record copied as it is. */
function rebaseTimestamps(records: Buffer, count: number, shift: number): Buffer {
  const r = new Reader(records);
  const w = new Writer(records.length + 16);
  for (let i = 0; i < count; i++) {
    const length = r.varint();
    const end = r.position + length;
    const head = new Writer(16).int8(r.int8()).varlong(r.varlong() - shift).toBuffer();
    const rest = r.raw(end - r.position);
    w.varint(head.length + rest.length).raw(head).raw(rest);
  }
  return w.toBuffer();
}
