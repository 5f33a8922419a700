import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { InitProducerId } from './index.js';
import type { InitProducerIdRequest, InitProducerIdResponse } from './types.js';

// kafkajs 2.2.4 (a dev dependency) as an independent encoder of v0/v1 requests.
const require = createRequire(import.meta.url);
type KjsRequest = { encode(): Promise<{ buffer: Buffer }> };
const kjsRequest = (v: number) =>
  require(`kafkajs/src/protocol/requests/initProducerId/v${v}/request.js`) as (args: { transactionalId: string | null; transactionTimeout: number }) => KjsRequest;

const requests: InitProducerIdRequest[] = [
  { transactionalId: null, transactionTimeoutMs: 60000 },
  { transactionalId: 'txn-1', transactionTimeoutMs: 5000 },
];
const responses: InitProducerIdResponse[] = [
  { throttleTimeMs: 0, errorCode: 0, producerId: 1000, producerEpoch: 0 },
  { throttleTimeMs: 5, errorCode: 16, producerId: -1, producerEpoch: -1 },
];

describe('InitProducerId', () => {
  it('advertises v0-2 under key 22, v2 flexible', () => {
    expect([InitProducerId.apiKey, InitProducerId.minVersion, InitProducerId.maxVersion]).toEqual([22, 0, 2]);
    expect([...InitProducerId.versions.values()].map((c) => c.flexible)).toEqual([false, false, true]);
  });

  it.each([0, 1, 2])('v%i round-trips requests and responses', (v) => {
    const codec = InitProducerId.versions.get(v)!;
    for (const value of requests) {
      const rt = roundTrip(codec, 'Request', value);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
    for (const value of responses) {
      const rt = roundTrip(codec, 'Response', value);
      expect(rt.decoded).toEqual(value);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v0/v1 requests: a null transactional id is i16 -1; same bytes as kafkajs encodes', async () => {
    for (const v of [0, 1]) {
      const codec = InitProducerId.versions.get(v)!;
      const ours = encodeBody(codec, 'Request', { transactionalId: null, transactionTimeoutMs: 60000 });
      expect(ours).toEqual(Buffer.from([0xff, 0xff, 0x00, 0x00, 0xea, 0x60]));
      const theirs = (await kjsRequest(v)({ transactionalId: null, transactionTimeout: 60000 }).encode()).buffer;
      expect(ours).toEqual(theirs);
      const named = (await kjsRequest(v)({ transactionalId: 'txn-1', transactionTimeout: 5000 }).encode()).buffer;
      expect(decodeBody(codec, 'Request', named)).toEqual({ value: { transactionalId: 'txn-1', transactionTimeoutMs: 5000 }, leftover: 0 });
    }
  });

  it('v2 uses compact encodings: null transactional id is uvarint 0, then an empty tag section', () => {
    const codec = InitProducerId.versions.get(2)!;
    expect(encodeBody(codec, 'Request', { transactionalId: null, transactionTimeoutMs: 60000 })).toEqual(Buffer.from([0x00, 0x00, 0x00, 0xea, 0x60, 0x00]));
    expect(encodeBody(codec, 'Request', { transactionalId: '', transactionTimeoutMs: 1 })).toEqual(Buffer.from([0x01, 0, 0, 0, 1, 0x00]));
    expect(encodeBody(codec, 'Response', { throttleTimeMs: 0, errorCode: 0, producerId: 1000, producerEpoch: 0 })).toEqual(
      Buffer.from([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0x03, 0xe8, 0, 0, 0x00]),
    );
  });
});
