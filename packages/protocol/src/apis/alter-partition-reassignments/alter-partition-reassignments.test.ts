import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { AlterPartitionReassignments } from './index.js';
import type { AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse } from './types.js';

const hex = (s: string) => s.replace(/\s+/g, '');
const v0 = AlterPartitionReassignments.versions.get(0)!;

describe('AlterPartitionReassignments', () => {
  it('v0 is flexible and round-trips requests and responses', () => {
    expect(v0.flexible).toBe(true);
    const request: AlterPartitionReassignmentsRequest = {
      timeoutMs: 30_000,
      topics: [
        { name: 'orders', partitions: [{ partitionIndex: 0, replicas: [3, 4] }, { partitionIndex: 7, replicas: null }] },
        { name: 'ünïcode', partitions: [] },
      ],
    };
    const response: AlterPartitionReassignmentsResponse = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      responses: [{ name: 'orders', partitions: [{ partitionIndex: 0, errorCode: 0, errorMessage: null }, { partitionIndex: 7, errorCode: 85, errorMessage: 'none' }] }],
    };
    for (const [kind, value] of [['Request', request], ['Response', response]] as const) {
      const rt = roundTrip(v0, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  // Bytes laid out by hand from Kafka 2.4.1 AlterPartitionReassignmentsRequest.json / ...Response.json.
  it('request bytes match Kafka\'s schema: compact arrays, null replicas (cancel) as uvarint 0, a tag section per struct', () => {
    const req: AlterPartitionReassignmentsRequest = {
      timeoutMs: 60_000,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, replicas: [3, 4] }, { partitionIndex: 1, replicas: null }] }],
    };
    const bytes = hex('0000ea60 02 0274 03 00000000 03 00000003 00000004 00 00000001 00 00 00 00');
    expect(encodeBody(v0, 'Request', req).toString('hex')).toBe(bytes);
    const decoded = decodeBody(v0, 'Request', Buffer.from(bytes, 'hex'));
    expect(decoded).toEqual({ value: req, leftover: 0 });
  });

  it('response bytes match Kafka\'s schema, per-partition and top-level errors', () => {
    const res: AlterPartitionReassignmentsResponse = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      responses: [{ name: 't', partitions: [{ partitionIndex: 0, errorCode: 0, errorMessage: null }, { partitionIndex: 1, errorCode: 85, errorMessage: 'x' }] }],
    };
    const bytes = hex('00000000 0000 00 02 0274 03 00000000 0000 00 00 00000001 0055 0278 00 00 00');
    expect(encodeBody(v0, 'Response', res).toString('hex')).toBe(bytes);
    expect(decodeBody(v0, 'Response', Buffer.from(bytes, 'hex'))).toEqual({ value: res, leftover: 0 });
    const notController: AlterPartitionReassignmentsResponse = { throttleTimeMs: 0, errorCode: 41, errorMessage: 'no', responses: [] };
    expect(encodeBody(v0, 'Response', notController).toString('hex')).toBe(hex('00000000 0029 036e6f 01 00'));
  });

  it('skips tagged fields a newer client adds to a partition', () => {
    // partition 0 carries tag 5 (2 bytes) in its tag section
    const body = Buffer.from(hex('0000ea60 02 0274 02 00000000 02 00000003 01 05 02 abcd 00 00'), 'hex');
    expect(decodeBody(v0, 'Request', body)).toEqual({ value: { timeoutMs: 60_000, topics: [{ name: 't', partitions: [{ partitionIndex: 0, replicas: [3] }] }] }, leftover: 0 });
  });
});
