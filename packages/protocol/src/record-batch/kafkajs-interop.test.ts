import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { CompressionType } from './batch-header.js';
import { decodeRecordBatch } from './decode-record-batch.js';
import { encodeRecordBatch } from './encode-record-batch.js';

// kafkajs 2.2.4 (a dev dependency) as an independent implementation of RecordBatch v2.
const require = createRequire(import.meta.url);
const { RecordBatch: KjsRecordBatch } = require('kafkajs/src/protocol/recordBatch/v0/index.js') as { RecordBatch: (args: object) => Promise<{ buffer: Buffer }> };
const KjsRecord = require('kafkajs/src/protocol/recordBatch/record/v0/index.js') as (args: object) => unknown;
const KjsBatchDecoder = require('kafkajs/src/protocol/recordBatch/v0/decoder.js') as (decoder: unknown) => Promise<KjsBatch>;
const KjsDecoder = require('kafkajs/src/protocol/decoder.js') as new (buf: Buffer) => unknown;

interface KjsBatch {
  firstOffset: string;
  records: { offset: string; timestamp: string; key: Buffer | null; value: Buffer | null; headers: Record<string, Buffer | Buffer[]> }[];
}

const t0 = 1_700_000_000_000;

describe('RecordBatch interoperability with kafkajs', () => {
  it.each([
    ['none', CompressionType.none],
    ['gzip', CompressionType.gzip],
  ] as const)('decodes a %s batch kafkajs encoded', async (_name, compression) => {
    const records = [
      KjsRecord({ offsetDelta: 0, timestampDelta: 0, key: Buffer.from('k0'), value: Buffer.from('v0'), headers: { a: Buffer.from('1') } }),
      KjsRecord({ offsetDelta: 1, timestampDelta: 7, key: null, value: Buffer.from('v1'), headers: { b: [Buffer.from('2'), Buffer.from('3')] } }),
    ];
    const { buffer } = await KjsRecordBatch({ compression, firstOffset: 10, firstTimestamp: t0, maxTimestamp: t0 + 7, lastOffsetDelta: 1, records });
    const batch = decodeRecordBatch(buffer);
    expect(batch.compression).toBe(compression);
    expect(batch.records).toEqual([
      { offset: 10, timestamp: t0, key: Buffer.from('k0'), value: Buffer.from('v0'), headers: [{ key: 'a', value: Buffer.from('1') }] },
      {
        offset: 11,
        timestamp: t0 + 7,
        key: null,
        value: Buffer.from('v1'),
        headers: [
          { key: 'b', value: Buffer.from('2') },
          { key: 'b', value: Buffer.from('3') },
        ],
      },
    ]);
  });

  it.each([
    ['none', CompressionType.none],
    ['gzip', CompressionType.gzip],
  ] as const)('produces a %s batch kafkajs decodes', async (_name, compression) => {
    const buf = encodeRecordBatch({
      baseOffset: 500,
      compression,
      firstTimestamp: t0,
      records: [
        { key: Buffer.from('k'), value: Buffer.from('hello'), headers: [{ key: 'h', value: Buffer.from('x') }], timestamp: t0 + 3 },
        { key: null, value: null, headers: [], timestamp: t0 },
      ],
    });
    const batch = await KjsBatchDecoder(new KjsDecoder(buf));
    expect(batch.firstOffset).toBe('500');
    expect(batch.records.map((r) => [r.offset, r.timestamp, r.key?.toString() ?? null, r.value?.toString() ?? null, Object.keys(r.headers)])).toEqual([
      ['500', String(t0 + 3), 'k', 'hello', ['h']],
      ['501', String(t0), null, null, []],
    ]);
  });
});
