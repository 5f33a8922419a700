import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { DescribeLogDirs } from './index.js';
import type { DescribeLogDirsRequest, DescribeLogDirsResponse } from './types.js';

const request = (): DescribeLogDirsRequest => ({ topics: [{ topic: 'orders', partitions: [0, 2] }, { topic: 'x', partitions: [] }] });
const response = (): DescribeLogDirsResponse => ({
  throttleTimeMs: 0,
  results: [
    {
      errorCode: 0,
      logDir: '/var/lib/gregor/data',
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 0, partitionSize: 123456789012, offsetLag: 0, isFutureKey: false }] }],
    },
    { errorCode: 56, logDir: '/mnt/bad', topics: [] },
  ],
});

describe('DescribeLogDirs', () => {
  it.each([...DescribeLogDirs.versions.keys()])('v%i round-trips requests and responses, and null topics (= all)', (v) => {
    const codec = DescribeLogDirs.versions.get(v)!;
    for (const [kind, value] of [['Request', request()], ['Request', { topics: null }], ['Request', { topics: [] }], ['Response', response()]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v0/v1 null topics is i32 -1; v2 is compact 0', () => {
    expect(encodeBody(DescribeLogDirs.versions.get(0)!, 'Request', { topics: null }).toString('hex')).toBe('ffffffff');
    expect(encodeBody(DescribeLogDirs.versions.get(1)!, 'Request', { topics: null }).toString('hex')).toBe('ffffffff');
    expect(encodeBody(DescribeLogDirs.versions.get(2)!, 'Request', { topics: null }).toString('hex')).toBe('00' + '00');
  });

  it('v2 (flexible) is byte-exact to Kafka 2.8 DescribeLogDirs*.json', () => {
    const v2 = DescribeLogDirs.versions.get(2)!;
    const req = { topics: [{ topic: 't', partitions: [0, 1] }] };
    const reqHex = '02' + '0274' + '03' + '00000000' + '00000001' + '00' + '00';
    expect(encodeBody(v2, 'Request', req).toString('hex')).toBe(reqHex);
    expect(decodeBody(v2, 'Request', Buffer.from(reqHex, 'hex'))).toEqual({ value: req, leftover: 0 });
    const res = {
      throttleTimeMs: 0,
      results: [{ errorCode: 0, logDir: '/d/a', topics: [{ name: 't', partitions: [{ partitionIndex: 0, partitionSize: 100, offsetLag: 0, isFutureKey: false }] }] }],
    };
    // throttle; results(1); error; logDir uvarint(4+1) "/d/a"; topics(1); name "t"; partitions(1); index, size, lag, future, tags x4; body tags
    const resHex =
      '00000000' + '02' + '0000' + '052f642f61' + '02' + '0274' + '02' + '00000000' + '0000000000000064' + '0000000000000000' + '00' + '00' + '00' + '00' + '00';
    expect(encodeBody(v2, 'Response', res).toString('hex')).toBe(resHex);
    expect(decodeBody(v2, 'Response', Buffer.from(resHex, 'hex'))).toEqual({ value: res, leftover: 0 });
  });

  it('v0 response is laid out with classic arrays and strings', () => {
    const res = { throttleTimeMs: 1, results: [{ errorCode: 0, logDir: '/d', topics: [] }] };
    expect(encodeBody(DescribeLogDirs.versions.get(0)!, 'Response', res).toString('hex')).toBe('00000001' + '00000001' + '0000' + '00022f64' + '00000000');
  });
});
