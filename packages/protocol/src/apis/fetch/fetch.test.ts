import { describe, expect, it } from 'vitest';
import { decodeRecordSet } from '../../record-batch/decode-record-batch.js';
import { decodeMessageSet } from '../../record-batch/message-set.js';
import { loadFixture } from '../../test-fixtures/load-fixture.js';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { Fetch } from './index.js';
import type { FetchRequest, FetchResponse } from './types.js';

const request = (v: number): FetchRequest => ({
  replicaId: -1,
  maxWaitMs: 500,
  minBytes: 1,
  maxBytes: v >= 3 ? 52428800 : 0x7fffffff,
  isolationLevel: v >= 4 ? 1 : 0,
  sessionId: v >= 7 ? 12 : 0,
  sessionEpoch: v >= 7 ? 3 : -1,
  topics: [
    {
      topic: 'orders',
      partitions: [
        { partition: 0, currentLeaderEpoch: v >= 9 ? 4 : -1, fetchOffset: 2 ** 35, logStartOffset: v >= 5 ? 10 : -1, partitionMaxBytes: 1048576 },
        { partition: 1, currentLeaderEpoch: -1, fetchOffset: 0, logStartOffset: -1, partitionMaxBytes: 1048576 },
      ],
    },
  ],
  forgottenTopicsData: v >= 7 ? [{ topic: 'old', partitions: [1, 2] }] : [],
  rackId: v >= 11 ? 'rack-b' : '',
});

const response = (v: number): FetchResponse => ({
  throttleTimeMs: v >= 1 ? 25 : 0,
  errorCode: 0,
  sessionId: v >= 7 ? 12 : 0,
  responses: [
    {
      topic: 'orders',
      partitionResponses: [
        {
          partition: 0,
          errorCode: 0,
          highWatermark: 100,
          lastStableOffset: v >= 4 ? 100 : -1,
          logStartOffset: v >= 5 ? 5 : -1,
          abortedTransactions: v >= 4 ? [{ producerId: 9, firstOffset: 50 }] : null,
          preferredReadReplica: v >= 11 ? 2 : -1,
          recordSet: Buffer.alloc(5000, 3),
        },
        { partition: 1, errorCode: 1, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, abortedTransactions: null, preferredReadReplica: -1, recordSet: Buffer.alloc(0) },
      ],
    },
  ],
});

describe('Fetch', () => {
  it.each([...Fetch.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = Fetch.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it.each([4, 7, 11])('decodes and re-encodes the captured kafkajs v%i request byte for byte', (v) => {
    const body = loadFixture(`fetch-v${v}_request`);
    const codec = Fetch.versions.get(v)!;
    const { value, leftover } = decodeBody(codec, 'Request', body);
    expect(leftover).toBe(0);
    expect((value as FetchRequest).topics[0]!.partitions.length).toBeGreaterThan(0);
    expect(encodeBody(codec, 'Request', value)).toEqual(body);
  });

  it.each([
    [4, 'fetch-v4_response'],
    [4, 'fetch-v4_response_gzip'],
    [11, 'fetch-v11_response'],
  ] as const)('decodes and re-encodes the captured kafkajs v%i response %s byte for byte', (v, name) => {
    const body = loadFixture(name);
    const codec = Fetch.versions.get(v)!;
    const { value, leftover } = decodeBody(codec, 'Response', body);
    expect(leftover).toBe(0);
    const partition = (value as FetchResponse).responses[0]!.partitionResponses[0]!;
    const records = decodeRecordSet(partition.recordSet!).flatMap((b) => b.records);
    expect(records.map((r) => r.key?.toString()).slice(0, 2)).toEqual(['key-0', 'key-1']);
    expect(encodeBody(codec, 'Response', value)).toEqual(body);
  });

  // Sarama 1.22's fetch_response_test.go oneMessageFetchResponse (Fetch v0, one magic-0 message at offset 0x55).
  it('decodes and re-encodes the v0 response Sarama expects byte for byte', () => {
    const message = [0x23, 0x96, 0x4a, 0xf7, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x02, 0x00, 0xee];
    const body = Buffer.from([
      0x00, 0x00, 0x00, 0x01, 0x00, 0x05, ...Buffer.from('topic'), 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x05, 0x00, 0x01,
      0x00, 0x00, 0x00, 0x00, 0x10, 0x10, 0x10, 0x10, 0x00, 0x00, 0x00, 0x1c,
      0x00, 0x00, 0x00, 0x00, 0x00, 0x55, 0x00, 0x00, 0x00, 0x00, 0x00, 0x10, ...message,
    ]);
    const codec = Fetch.versions.get(0)!;
    const { value, leftover } = decodeBody(codec, 'Response', body);
    expect(leftover).toBe(0);
    const p = (value as FetchResponse).responses[0]!.partitionResponses[0]!;
    expect(p).toMatchObject({ partition: 5, errorCode: 1, highWatermark: 0x10101010 });
    expect(decodeMessageSet(p.recordSet!)).toMatchObject([{ offset: 0x550000, magic: 0, key: null, value: Buffer.from([0x00, 0xee]) }]);
    expect(encodeBody(codec, 'Response', value)).toEqual(body);
  });

  // librdkafka rejects a whole Fetch response over one record set of size -1 ("invalid MessageSetSize -1"):
  // a partition without records (an error, an empty log) is written as Kafka's MemoryRecords.EMPTY, size 0.
  it.each([...Fetch.versions.keys()])('v%i writes a partition without records as an empty record set (size 0), never null (-1)', (v) => {
    const p = { partition: 7, errorCode: 29, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, abortedTransactions: null, preferredReadReplica: -1, recordSet: null };
    const body = encodeBody(Fetch.versions.get(v)!, 'Response', { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses: [{ topic: 't', partitionResponses: [p] }] });
    expect(body.readInt32BE(body.length - 4)).toBe(0);
    const { value } = decodeBody(Fetch.versions.get(v)!, 'Response', body);
    expect((value as FetchResponse).responses[0]!.partitionResponses[0]!.recordSet).toEqual(Buffer.alloc(0));
  });

  it('v0-2 requests have no max_bytes (Kafka reads 0x7fffffff) and v0-3 no isolation level', () => {
    const v2 = encodeBody(Fetch.versions.get(2)!, 'Request', request(2));
    const v3 = encodeBody(Fetch.versions.get(3)!, 'Request', request(3));
    const v4 = encodeBody(Fetch.versions.get(4)!, 'Request', request(4));
    expect(v3.length - v2.length).toBe(4);
    expect(v4.length - v3.length).toBe(1);
    expect(v2.subarray(0, 16).toString('hex')).toBe('ffffffff' + '000001f4' + '00000001' + '00000001');
  });
});
