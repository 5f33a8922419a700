import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { ErrorCode, GregorError } from '@gregor/common';
import {
  Attributes,
  BatchOffsets,
  CompressionType,
  computeBatchCrc,
  decodeRecordSet,
  encodeRecordBatch,
  splitBatches,
  validateBatch,
  type CompressionCodec,
  type RecordInput,
} from '@gregor/protocol';
import { PartitionLog } from './log.js';
import type { LogConfig } from './log-config.js';
import { targetCompression, type TopicCompressionType } from './log-recompress.js';
import { tempDir, testConfig, testLogger } from './test-batches.js';

/** Topic compression.type on the leader (Kafka's LogValidator rebuilding batches whose codec is not the topic's). */

const NOW = 1_700_000_000_000;
let dir: { path: string; cleanup(): void };
const opened: PartitionLog[] = [];
beforeEach(() => {
  dir = tempDir('gregor-log-recompress-');
});
afterEach(() => {
  for (const log of opened.splice(0)) log.close();
  dir.cleanup();
});

function openLog(config: Partial<LogConfig>, name = `t-${opened.length}`): PartitionLog {
  const log = new PartitionLog({ dir: join(dir.path, name), topic: 't', partition: 0, config: testConfig(config), logger: testLogger(), hadCleanShutdown: true, time: () => NOW + 5000 });
  opened.push(log);
  return log;
}

function records(n: number, firstDelta = 0): RecordInput[] {
  return Array.from({ length: n }, (_, i) => ({
    key: i % 3 === 0 ? null : Buffer.from(`key-${i}`),
    value: i % 7 === 6 ? null : Buffer.from(`value-${i}-`.repeat(1 + (i % 5))),
    headers: i % 2 ? [{ key: 'h', value: Buffer.from([0xff, 0, i]) }] : [],
    timestamp: NOW + firstDelta + i * 3,
  }));
}

/** A producer's batch as sent: base offset 0, no leader epoch; idempotent fields set. */
function producerBatch(compression: CompressionCodec, recs = records(40), baseSequence = 0): Buffer {
  return encodeRecordBatch({ baseOffset: 0, compression, firstTimestamp: NOW, producerId: 7001, producerEpoch: 3, baseSequence, records: recs });
}

const CODECS: [string, CompressionCodec][] = [
  ['none', CompressionType.none],
  ['gzip', CompressionType.gzip],
  ['snappy', CompressionType.snappy],
  ['lz4', CompressionType.lz4],
  ['zstd', CompressionType.zstd],
];
const TOPIC_TYPES: TopicCompressionType[] = ['producer', 'uncompressed', 'gzip', 'snappy', 'lz4', 'zstd'];

function stored(log: PartitionLog): Buffer {
  return log.read(0, 1 << 22, Number.MAX_SAFE_INTEGER, true).records;
}

function codeOf(fn: () => unknown): number | string {
  try {
    fn();
    return 'ok';
  } catch (err) {
    return err instanceof GregorError ? err.code : String(err);
  }
}

describe('topic compression.type on the leader', () => {
  it('maps the topic setting to the codec stored (producer keeps the batch\'s own)', () => {
    for (const [, codec] of CODECS) {
      expect(targetCompression('producer', codec)).toBe(codec);
      expect(targetCompression(undefined, codec)).toBe(codec);
      expect(targetCompression('uncompressed', codec)).toBe(CompressionType.none);
      expect(targetCompression('zstd', codec)).toBe(CompressionType.zstd);
      expect(targetCompression('snappy', codec)).toBe(CompressionType.snappy);
    }
  });

  it('stores every producer codec in every topic codec: same records, producer id, epoch, sequence and timestamps, offsets assigned, CRC valid', () => {
    for (const topicType of TOPIC_TYPES) {
      const log = openLog({ compressionType: topicType });
      let offset = 0;
      for (const [name, codec] of CODECS) {
        const sent = producerBatch(codec, records(40), offset);
        const info = log.appendAsLeader(sent, 5);
        expect(info, `${topicType} <- ${name}`).toMatchObject({ firstOffset: offset, lastOffset: offset + 39, maxTimestamp: NOW + 39 * 3, duplicate: false });
        offset += 40;
      }
      const bytes = stored(log);
      const headers = splitBatches(bytes);
      const decoded = decodeRecordSet(bytes);
      expect(headers).toHaveLength(CODECS.length);
      for (const [i, [name, codec]] of CODECS.entries()) {
        const h = headers[i]!;
        const where = `${topicType} <- ${name}`;
        expect(h.compression, where).toBe(targetCompression(topicType, codec));
        expect(validateBatch(bytes, h.position).crc, where).toBe(computeBatchCrc(bytes, h.position, h.sizeInBytes));
        expect(h, where).toMatchObject({ baseOffset: i * 40, lastOffset: i * 40 + 39, partitionLeaderEpoch: 5, producerId: 7001, producerEpoch: 3, baseSequence: i * 40, recordCount: 40, firstTimestamp: NOW, maxTimestamp: NOW + 39 * 3, timestampType: 0 });
        const original = decodeRecordSet(producerBatch(codec, records(40), i * 40))[0]!.records;
        expect(decoded[i]!.records, where).toEqual(original.map((r) => ({ ...r, offset: r.offset + i * 40 })));
      }
      expect(log.logEndOffset).toBe(offset);
    }
  });

  it('keeps the bytes of a batch already in the topic\'s codec (no rebuild)', () => {
    const log = openLog({ compressionType: 'zstd' });
    const sent = producerBatch(CompressionType.zstd);
    log.appendAsLeader(sent, 0);
    const out = stored(log);
    expect(out.subarray(BatchOffsets.attributes)).toEqual(sent.subarray(BatchOffsets.attributes));
  });

  it('rebases the first timestamp on the first record\'s, as Kafka\'s MemoryRecordsBuilder does; record timestamps unchanged', () => {
    const log = openLog({ compressionType: 'lz4' });
    const recs = records(5, 250); // first record 250 ms after the batch's first timestamp
    log.appendAsLeader(producerBatch(CompressionType.none, recs), 0);
    const [batch] = decodeRecordSet(stored(log));
    expect(batch!.compression).toBe(CompressionType.lz4);
    expect(batch!.firstTimestamp).toBe(NOW + 250);
    expect(batch!.maxTimestamp).toBe(NOW + 250 + 12);
    expect(batch!.records.map((r) => r.timestamp)).toEqual(recs.map((r) => r.timestamp));
  });

  it('LogAppendTime topics: the rebuilt batch carries the leader\'s time and a valid CRC', () => {
    const log = openLog({ compressionType: 'gzip', messageTimestampType: 'LogAppendTime' });
    expect(log.appendAsLeader(producerBatch(CompressionType.snappy), 0).logAppendTimeMs).toBe(NOW + 5000);
    const bytes = stored(log);
    const [h] = splitBatches(bytes);
    expect(h!.compression).toBe(CompressionType.gzip);
    expect(h!.attributes & Attributes.timestampTypeLogAppend).not.toBe(0);
    expect(h!.maxTimestamp).toBe(NOW + 5000);
    expect(validateBatch(bytes, 0).crc).toBe(computeBatchCrc(bytes, 0, h!.sizeInBytes));
  });

  it('a retried batch is recognised after its rebuild: original offsets back, nothing appended', () => {
    const log = openLog({ compressionType: 'zstd' });
    const first = producerBatch(CompressionType.none, records(10), 0);
    log.appendAsLeader(first, 0);
    log.appendAsLeader(producerBatch(CompressionType.none, records(10), 10), 0);
    const before = stored(log);
    expect(log.appendAsLeader(first, 0)).toMatchObject({ firstOffset: 0, lastOffset: 9, duplicate: true });
    expect(log.logEndOffset).toBe(20);
    expect(stored(log)).toEqual(before);
  });

  it('a batch that inflates past max.message.bytes when stored uncompressed is MESSAGE_TOO_LARGE and nothing is written', () => {
    const big: RecordInput[] = Array.from({ length: 20 }, (_, i) => ({ key: null, value: Buffer.alloc(10_000, i), headers: [], timestamp: NOW }));
    const log = openLog({ compressionType: 'uncompressed', maxMessageBytes: 50_000 });
    const sent = producerBatch(CompressionType.zstd, big);
    expect(sent.length).toBeLessThan(50_000);
    expect(codeOf(() => log.appendAsLeader(sent, 0))).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect(log.logEndOffset).toBe(0);
    // The same batch is fine where it is kept as sent.
    expect(openLog({ compressionType: 'producer', maxMessageBytes: 50_000 }).appendAsLeader(sent, 0).lastOffset).toBe(19);
  });

  it('decompression for the rebuild is capped: a batch inflating past max(max.message.bytes, 50 MiB) is CORRUPT_MESSAGE', () => {
    // 60 MiB of zeros in one record compresses to a few KiB of zstd.
    const bomb = producerBatch(CompressionType.zstd, [{ key: null, value: Buffer.alloc(60 << 20), headers: [], timestamp: NOW }]);
    expect(bomb.length).toBeLessThan(1 << 20);
    const log = openLog({ compressionType: 'uncompressed' });
    expect(codeOf(() => log.appendAsLeader(bomb, 0))).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect(log.logEndOffset).toBe(0);
  });

  it('a follower stores the leader\'s rebuilt batches byte for byte', () => {
    const leader = openLog({ compressionType: 'snappy' });
    leader.appendAsLeader(producerBatch(CompressionType.gzip), 2);
    const follower = openLog({ compressionType: 'snappy' });
    follower.appendAsFollower(stored(leader));
    expect(stored(follower)).toEqual(stored(leader));
  });
});
