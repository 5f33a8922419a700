import { describe, expect, it } from 'vitest';
import { roundTrip } from '../../test-fixtures/round-trip.js';
import { SyncGroup } from './index.js';
import type { SyncGroupRequest, SyncGroupResponse } from './types.js';

const request = (v: number): SyncGroupRequest => ({
  groupId: 'g',
  generationId: 4,
  memberId: 'm-1',
  groupInstanceId: v >= 3 ? 'i' : null,
  assignments: [{ memberId: 'm-1', assignment: Buffer.from([0, 0, 0, 0, 0, 0]) }],
});
const response = (v: number): SyncGroupResponse => ({ throttleTimeMs: v >= 1 ? 1 : 0, errorCode: 27, assignment: Buffer.from([9]) });

describe('SyncGroup', () => {
  it.each([...SyncGroup.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = SyncGroup.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });
});
