import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { DeleteRecords } from './index.js';
import type { DeleteRecordsRequest, DeleteRecordsResponse } from './types.js';

const request = (): DeleteRecordsRequest => ({
  topics: [
    { name: 'orders', partitions: [{ partitionIndex: 0, offset: 42 }, { partitionIndex: 3, offset: -1 }] },
    { name: 'ünïcode', partitions: [] },
  ],
  timeoutMs: 30_000,
});
const response = (): DeleteRecordsResponse => ({
  throttleTimeMs: 7,
  topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, lowWatermark: 42, errorCode: 0 }, { partitionIndex: 3, lowWatermark: -1, errorCode: 1 }] }],
});

describe('DeleteRecords', () => {
  it.each([...DeleteRecords.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = DeleteRecords.versions.get(v)!;
    for (const [kind, value] of [['Request', request()], ['Response', response()]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v0 and v1 lay fields out as DeleteRecordsRequest.json (classic i32 arrays, i16 strings)', () => {
    const req = { topics: [{ name: 'abc', partitions: [{ partitionIndex: 1, offset: 5 }] }], timeoutMs: 1000 };
    const hex = '00000001' + '0003616263' + '00000001' + '00000001' + '0000000000000005' + '000003e8';
    for (const v of [0, 1]) expect(encodeBody(DeleteRecords.versions.get(v)!, 'Request', req).toString('hex')).toBe(hex);
    const res = { throttleTimeMs: 0, topics: [{ name: 'abc', partitions: [{ partitionIndex: 1, lowWatermark: 5, errorCode: 44 }] }] };
    expect(encodeBody(DeleteRecords.versions.get(1)!, 'Response', res).toString('hex')).toBe(
      '00000000' + '00000001' + '0003616263' + '00000001' + '00000001' + '0000000000000005' + '002c',
    );
  });

  it('v2 (flexible) is byte-exact to Kafka 2.8 DeleteRecords*.json: compact arrays/strings, a tag section per struct', () => {
    const v2 = DeleteRecords.versions.get(2)!;
    const req = { topics: [{ name: 'abc', partitions: [{ partitionIndex: 1, offset: 5 }] }], timeoutMs: 1000 };
    // topics uvarint(1+1); name uvarint(3+1) "abc"; partitions uvarint(2); index, offset, partition tags; topic tags; timeout; body tags
    const reqHex = '02' + '04616263' + '02' + '00000001' + '0000000000000005' + '00' + '00' + '000003e8' + '00';
    expect(encodeBody(v2, 'Request', req).toString('hex')).toBe(reqHex);
    expect(decodeBody(v2, 'Request', Buffer.from(reqHex, 'hex'))).toEqual({ value: req, leftover: 0 });
    const res = { throttleTimeMs: 0, topics: [{ name: 'abc', partitions: [{ partitionIndex: 1, lowWatermark: 5, errorCode: 0 }] }] };
    const resHex = '00000000' + '02' + '04616263' + '02' + '00000001' + '0000000000000005' + '0000' + '00' + '00' + '00';
    expect(encodeBody(v2, 'Response', res).toString('hex')).toBe(resHex);
    expect(decodeBody(v2, 'Response', Buffer.from(resHex, 'hex'))).toEqual({ value: res, leftover: 0 });
  });

  it('v2 skips unknown tagged fields in a partition', () => {
    const v2 = DeleteRecords.versions.get(2)!;
    const hex = '02' + '0274' + '02' + '00000000' + '0000000000000009' + '01' + '05' + '01' + 'ff' + '00' + '00000064' + '00';
    expect(decodeBody(v2, 'Request', Buffer.from(hex, 'hex'))).toEqual({
      value: { topics: [{ name: 't', partitions: [{ partitionIndex: 0, offset: 9 }] }], timeoutMs: 100 },
      leftover: 0,
    });
  });
});
