import { describe, expect, it } from 'vitest';
import { Writer } from '@gregor/protocol';
import { decodeGroupValue, decodeKey, decodeOffsetValue, encodeGroupKey, encodeGroupValue, encodeOffsetKey, encodeOffsetValue } from './records.js';
import { partitionForGroup } from './partition-for.js';

describe('__consumer_offsets records', () => {
  it('writes offset key v1 and value v3 byte for byte as Kafka lays them out', () => {
    expect(encodeOffsetKey('g', 't', 3).toString('hex')).toBe('0001' + '000167' + '000174' + '00000003');
    const value = encodeOffsetValue({ offset: 42, leaderEpoch: 5, metadata: '', commitTimestamp: 1000, expireTimestamp: -1 });
    expect(value.toString('hex')).toBe('0003' + '000000000000002a' + '00000005' + '0000' + '00000000000003e8');
    expect(decodeKey(encodeOffsetKey('g', 't', 3))).toEqual({ kind: 'offset', group: 'g', topic: 't', partition: 3 });
    expect(decodeOffsetValue(value)).toEqual({ offset: 42, leaderEpoch: 5, metadata: '', commitTimestamp: 1000, expireTimestamp: -1 });
  });

  it('reads older offset values (v1 with expire timestamp, v0)', () => {
    const v1 = new Writer().int16(1).int64(7).string('m').int64(10).int64(20).toBuffer();
    expect(decodeOffsetValue(v1)).toEqual({ offset: 7, leaderEpoch: -1, metadata: 'm', commitTimestamp: 10, expireTimestamp: 20 });
    const v0 = new Writer().int16(0).int64(8).string('').int64(11).toBuffer();
    expect(decodeOffsetValue(v0)).toMatchObject({ offset: 8, commitTimestamp: 11 });
  });

  it('round-trips group metadata v3 and reads a v0 value', () => {
    const g = {
      protocolType: 'consumer',
      generationId: 4,
      protocol: 'range',
      leader: 'm1',
      currentStateTimestamp: 99,
      members: [
        { memberId: 'm1', groupInstanceId: null, clientId: 'c', clientHost: '/127.0.0.1', rebalanceTimeoutMs: 300, sessionTimeoutMs: 100, subscription: Buffer.from([1]), assignment: Buffer.from([2]) },
      ],
    };
    expect(decodeKey(encodeGroupKey('grp'))).toEqual({ kind: 'group', group: 'grp' });
    expect(decodeGroupValue(encodeGroupValue(g))).toEqual(g);
    const v0 = new Writer().int16(0).string('consumer').int32(1).nullableString('range').nullableString('a');
    v0.array([0], (w) => w.string('a').string('c').string('h').int32(6000).bytes(Buffer.alloc(0)).bytes(Buffer.alloc(0)));
    expect(decodeGroupValue(v0.toBuffer()).members[0]).toMatchObject({ memberId: 'a', sessionTimeoutMs: 6000, rebalanceTimeoutMs: 6000 });
  });

  it('maps groups to partitions with Java String.hashCode (reference examples)', () => {
    expect(partitionForGroup('my-group', 50)).toBe(12);
    expect(partitionForGroup('test-consumer-group', 50)).toBe(31);
  });
});
