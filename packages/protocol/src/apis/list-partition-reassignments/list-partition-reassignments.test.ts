import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { ListPartitionReassignments } from './index.js';
import type { ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse } from './types.js';

const hex = (s: string) => s.replace(/\s+/g, '');
const v0 = ListPartitionReassignments.versions.get(0)!;

describe('ListPartitionReassignments', () => {
  it('v0 is flexible and round-trips requests and responses', () => {
    expect(v0.flexible).toBe(true);
    const request: ListPartitionReassignmentsRequest = { timeoutMs: 1000, topics: [{ name: 'orders', partitionIndexes: [0, 1, 2] }] };
    const response: ListPartitionReassignmentsResponse = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      topics: [{ name: 'orders', partitions: [{ partitionIndex: 1, replicas: [3, 4, 1, 2], addingReplicas: [3, 4], removingReplicas: [1, 2] }] }],
    };
    for (const [kind, value] of [['Request', request], ['Response', response]] as const) {
      const rt = roundTrip(v0, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  // Bytes laid out by hand from Kafka 2.4.1 ListPartitionReassignmentsRequest.json / ...Response.json.
  it('request bytes match Kafka\'s schema; null topics (everything in progress) is uvarint 0', () => {
    const req: ListPartitionReassignmentsRequest = { timeoutMs: 60_000, topics: [{ name: 't', partitionIndexes: [0] }] };
    const bytes = hex('0000ea60 02 0274 02 00000000 00 00');
    expect(encodeBody(v0, 'Request', req).toString('hex')).toBe(bytes);
    expect(decodeBody(v0, 'Request', Buffer.from(bytes, 'hex'))).toEqual({ value: req, leftover: 0 });
    const all = hex('0000ea60 00 00');
    expect(encodeBody(v0, 'Request', { timeoutMs: 60_000, topics: null }).toString('hex')).toBe(all);
    expect(decodeBody(v0, 'Request', Buffer.from(all, 'hex'))).toEqual({ value: { timeoutMs: 60_000, topics: null }, leftover: 0 });
  });

  it('response bytes match Kafka\'s schema', () => {
    const res: ListPartitionReassignmentsResponse = {
      throttleTimeMs: 0,
      errorCode: 0,
      errorMessage: null,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, replicas: [3, 4, 1, 2], addingReplicas: [3, 4], removingReplicas: [1, 2] }] }],
    };
    const bytes = hex(
      '00000000 0000 00 02 0274 02 00000000 05 00000003 00000004 00000001 00000002 03 00000003 00000004 03 00000001 00000002 00 00 00',
    );
    expect(encodeBody(v0, 'Response', res).toString('hex')).toBe(bytes);
    expect(decodeBody(v0, 'Response', Buffer.from(bytes, 'hex'))).toEqual({ value: res, leftover: 0 });
    const none: ListPartitionReassignmentsResponse = { throttleTimeMs: 0, errorCode: 0, errorMessage: null, topics: [] };
    expect(encodeBody(v0, 'Response', none).toString('hex')).toBe(hex('00000000 0000 00 01 00'));
  });
});
