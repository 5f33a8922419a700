import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, silentLogger } from '@gregor/common';
import { Writer, type JoinGroupRequest, type OffsetCommitRequest } from '@gregor/protocol';
import { DEFAULT_COORDINATOR_CONFIG } from './coordinator-config.js';
import { GroupCoordinator } from './group-coordinator.js';
import { MemoryOffsetsLog } from './memory-offsets-log.js';

const config = { ...DEFAULT_COORDINATOR_CONFIG, brokerId: 1, offsetsTopicNumPartitions: 1, groupInitialRebalanceDelayMs: 20, groupMinSessionTimeoutMs: 100 };
const ctx = { clientId: 'c', clientHost: '/127.0.0.1', requireKnownMemberId: false };

/** A ConsumerProtocol v1 subscription (v0's prefix, then the v1 owned partitions Kafka's parser must skip). */
function subscription(topics: string[]): Buffer {
  return new Writer().int16(1).array(topics, (w, t) => w.string(t)).nullableBytes(null).int32(0).toBuffer();
}
const join = (protocolType: string, metadata: Buffer): JoinGroupRequest => ({
  groupId: 'g',
  sessionTimeoutMs: 10_000,
  rebalanceTimeoutMs: 2000,
  memberId: '',
  groupInstanceId: null,
  protocolType,
  protocols: [{ name: 'range', metadata }],
});
const commit = (partitions: [string, number, number][], memberId = '', generationId = -1): OffsetCommitRequest => ({
  groupId: 'g',
  generationId,
  memberId,
  groupInstanceId: null,
  retentionTimeMs: -1,
  topics: [...new Set(partitions.map(([t]) => t))].map((name) => ({
    name,
    partitions: partitions.filter(([t]) => t === name).map(([, p, o]) => ({ partitionIndex: p, committedOffset: o, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null })),
  })),
});
const tps = (...list: [string, number][]) => list.map(([topic, partition]) => ({ topic, partition }));
const committed = (c: GroupCoordinator) =>
  Object.fromEntries(c.handleFetchOffsets('g', null).topics.flatMap((t) => t.partitions.map((p) => [`${t.name}-${p.partitionIndex}`, p.committedOffset])));

const coordinators: GroupCoordinator[] = [];
async function started(log = new MemoryOffsetsLog()) {
  const c = new GroupCoordinator(config, log, silentLogger());
  coordinators.push(c);
  c.startup();
  await c.onElection(0);
  return { c, log };
}
afterEach(() => {
  for (const c of coordinators.splice(0)) c.shutdown();
});

/** One member that joined and synced: the group is Stable. */
async function stableGroup(c: GroupCoordinator, protocolType: string, metadata: Buffer): Promise<string> {
  const joined = await c.handleJoinGroup(join(protocolType, metadata), ctx);
  expect(joined.errorCode).toBe(0);
  await c.handleSyncGroup({ groupId: 'g', generationId: joined.generationId, memberId: joined.memberId, groupInstanceId: null, assignments: [] });
  expect(c.handleDescribeGroup('g').groupState).toBe('Stable');
  return joined.memberId;
}

describe('GroupCoordinator OffsetDelete', () => {
  it('deletes offsets of an empty group with tombstones a new coordinator honours; the last ones take the group along', async () => {
    const { c, log } = await started();
    await c.handleCommitOffsets(commit([['t', 0, 5], ['t', 1, 6], ['u', 0, 7]]));
    const first = await c.handleDeleteOffsets('g', tps(['t', 0], ['t', 9]));
    expect(first).toEqual({ errorCode: 0, partitions: [{ topic: 't', partition: 0, errorCode: 0 }, { topic: 't', partition: 9, errorCode: 0 }] });
    expect(committed(c)).toEqual({ 't-1': 6, 'u-0': 7 });
    c.onResignation(0);
    const { c: c2 } = await started(log);
    expect(committed(c2)).toEqual({ 't-1': 6, 'u-0': 7 });

    expect((await c2.handleDeleteOffsets('g', tps(['t', 1], ['u', 0]))).errorCode).toBe(0);
    expect(committed(c2)).toEqual({});
    expect(c2.handleListGroups().groups).toEqual([]);
    expect((await c2.handleDeleteOffsets('g', tps(['t', 1]))).errorCode).toBe(ErrorCode.GROUP_ID_NOT_FOUND);
    const { c: c3 } = await started(log);
    expect(c3.handleListGroups().groups).toEqual([]);
    expect(committed(c3)).toEqual({});
  });

  it('in an active consumer group refuses subscribed topics (GROUP_SUBSCRIBED_TO_TOPIC) and deletes the others', async () => {
    const { c, log } = await started();
    const member = await stableGroup(c, 'consumer', subscription(['t']));
    await c.handleCommitOffsets(commit([['t', 0, 5], ['old', 0, 3]], member, 1));
    const res = await c.handleDeleteOffsets('g', tps(['t', 0], ['old', 0]));
    expect(res).toEqual({
      errorCode: 0,
      partitions: [{ topic: 'old', partition: 0, errorCode: 0 }, { topic: 't', partition: 0, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC }],
    });
    expect(committed(c)).toEqual({ 't-0': 5 });
    // The group stays (it has members), and a coordinator loading it knows its subscription too.
    c.onResignation(0);
    const { c: c2 } = await started(log);
    expect((await c2.handleDeleteOffsets('g', tps(['t', 0]))).partitions[0]!.errorCode).toBe(ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC);
    expect(committed(c2)).toEqual({ 't-0': 5 });
  });

  it('answers NON_EMPTY_GROUP for an active non-consumer group, and group errors with no partitions', async () => {
    const { c } = await started();
    await stableGroup(c, 'connect', Buffer.from('whatever'));
    expect(await c.handleDeleteOffsets('g', tps(['t', 0]))).toEqual({ errorCode: ErrorCode.NON_EMPTY_GROUP, partitions: [] });
    expect(await c.handleDeleteOffsets('', tps(['t', 0]))).toEqual({ errorCode: ErrorCode.INVALID_GROUP_ID, partitions: [] });
    expect(await c.handleDeleteOffsets('nobody', tps(['t', 0]))).toEqual({ errorCode: ErrorCode.GROUP_ID_NOT_FOUND, partitions: [] });
    const other = new GroupCoordinator({ ...config, offsetsTopicNumPartitions: 2 }, new MemoryOffsetsLog(), silentLogger());
    coordinators.push(other);
    other.startup();
    expect((await other.handleDeleteOffsets('g', tps(['t', 0]))).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    other.shutdown();
    expect((await other.handleDeleteOffsets('g', tps(['t', 0]))).errorCode).toBe(ErrorCode.COORDINATOR_NOT_AVAILABLE);
  });

  it('keeps the offsets and reports the coordinator error when the tombstones cannot be written', async () => {
    const { c, log } = await started();
    await c.handleCommitOffsets(commit([['t', 0, 5]]));
    log.failWith = ErrorCode.NOT_LEADER_FOR_PARTITION;
    expect(await c.handleDeleteOffsets('g', tps(['t', 0]))).toEqual({ errorCode: 0, partitions: [{ topic: 't', partition: 0, errorCode: ErrorCode.NOT_COORDINATOR }] });
    expect(committed(c)).toEqual({ 't-0': 5 });
  });
});
