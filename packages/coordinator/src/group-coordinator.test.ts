import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, silentLogger } from '@gregor/common';
import type { JoinGroupRequest } from '@gregor/protocol';
import { DEFAULT_COORDINATOR_CONFIG } from './coordinator-config.js';
import { GroupCoordinator } from './group-coordinator.js';
import { MemoryOffsetsLog } from './memory-offsets-log.js';

const config = { ...DEFAULT_COORDINATOR_CONFIG, brokerId: 1, offsetsTopicNumPartitions: 1, groupInitialRebalanceDelayMs: 50, groupMinSessionTimeoutMs: 100 };
const ctx = { clientId: 'c', clientHost: '/127.0.0.1', requireKnownMemberId: true };
const join = (memberId: string, sessionTimeoutMs = 1000, protocols = [{ name: 'range', metadata: Buffer.from([1]) }]): JoinGroupRequest => ({
  groupId: 'g',
  sessionTimeoutMs,
  rebalanceTimeoutMs: 2000,
  memberId,
  groupInstanceId: null,
  protocolType: 'consumer',
  protocols,
});

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

/** Full join: MEMBER_ID_REQUIRED, then the join with the id. */
async function joinNew(c: GroupCoordinator, sessionTimeoutMs?: number) {
  const first = await c.handleJoinGroup(join('', sessionTimeoutMs), ctx);
  expect(first.errorCode).toBe(ErrorCode.MEMBER_ID_REQUIRED);
  return { id: first.memberId, joined: c.handleJoinGroup(join(first.memberId, sessionTimeoutMs), ctx) };
}

describe('GroupCoordinator', () => {
  it('forms a group: one leader gets the members, sync stores the assignment, heartbeats are accepted', async () => {
    const { c, log } = await started();
    const a = await joinNew(c);
    const b = await joinNew(c);
    const [ja, jb] = await Promise.all([a.joined, b.joined]);
    expect(ja.generationId).toBe(1);
    expect(ja.protocolName).toBe('range');
    expect(ja.leader).toBe(a.id);
    expect(ja.members.map((m) => m.memberId).sort()).toEqual([a.id, b.id].sort());
    expect(jb.members).toEqual([]);
    const follower = c.handleSyncGroup({ groupId: 'g', generationId: 1, memberId: b.id, groupInstanceId: null, assignments: [] });
    expect(c.handleHeartbeat('g', b.id, 1)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const leader = await c.handleSyncGroup({ groupId: 'g', generationId: 1, memberId: a.id, groupInstanceId: null, assignments: [{ memberId: b.id, assignment: Buffer.from('B') }] });
    expect(leader).toMatchObject({ errorCode: 0, assignment: Buffer.alloc(0) });
    expect((await follower).assignment.toString()).toBe('B');
    expect(c.handleHeartbeat('g', a.id, 1)).toBe(ErrorCode.NONE);
    expect(c.handleHeartbeat('g', a.id, 0)).toBe(ErrorCode.ILLEGAL_GENERATION);
    expect(c.handleHeartbeat('g', 'nobody', 1)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(c.handleDescribeGroup('g')).toMatchObject({ groupState: 'Stable', protocolData: 'range' });
    expect(log.appends).toBe(1);
  });

  it('rebalances when a member leaves, and when a session expires', async () => {
    const { c } = await started();
    const a = await joinNew(c, 200);
    const b = await joinNew(c, 200);
    await Promise.all([a.joined, b.joined]);
    await Promise.all([
      c.handleSyncGroup({ groupId: 'g', generationId: 1, memberId: a.id, groupInstanceId: null, assignments: [] }),
      c.handleSyncGroup({ groupId: 'g', generationId: 1, memberId: b.id, groupInstanceId: null, assignments: [] }),
    ]);
    expect(c.handleLeaveGroup('g', [{ memberId: b.id, groupInstanceId: null }]).members[0]!.errorCode).toBe(0);
    expect(c.handleHeartbeat('g', a.id, 1)).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    const rejoin = await c.handleJoinGroup(join(a.id, 200), ctx);
    expect(rejoin).toMatchObject({ errorCode: 0, generationId: 2, leader: a.id });
    await c.handleSyncGroup({ groupId: 'g', generationId: 2, memberId: a.id, groupInstanceId: null, assignments: [] });
    // No heartbeats: the session runs out and the group empties.
    await new Promise((r) => setTimeout(r, 400));
    expect(c.handleDescribeGroup('g').groupState).toBe('Empty');
  });

  it('completes a rebalance without a member that does not rejoin within the rebalance timeout', async () => {
    const { c } = await started();
    const shortJoin = (memberId: string, metadata = Buffer.from([1])): JoinGroupRequest => ({ ...join(memberId, 5000, [{ name: 'range', metadata }]), rebalanceTimeoutMs: 300 });
    const a1 = await c.handleJoinGroup(shortJoin(''), ctx);
    const b1 = await c.handleJoinGroup(shortJoin(''), ctx);
    const [ja, jb] = await Promise.all([c.handleJoinGroup(shortJoin(a1.memberId), ctx), c.handleJoinGroup(shortJoin(b1.memberId), ctx)]);
    expect(ja.generationId).toBe(1);
    await Promise.all([ja, jb].map((j) => c.handleSyncGroup({ groupId: 'g', generationId: 1, memberId: j.memberId, groupInstanceId: null, assignments: [] })));
    // A changes its subscription: a rebalance that B (silent) never joins.
    const rejoinedAt = Date.now();
    const again = await c.handleJoinGroup(shortJoin(a1.memberId, Buffer.from([2])), ctx);
    expect(Date.now() - rejoinedAt).toBeGreaterThanOrEqual(250);
    expect(again).toMatchObject({ errorCode: 0, generationId: 2, leader: a1.memberId });
    expect(again.members.map((m) => m.memberId)).toEqual([a1.memberId]);
    expect(c.handleHeartbeat('g', b1.memberId, 1)).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('extends the initial delay once for members arriving during it', async () => {
    const { c } = await started();
    const t0 = Date.now();
    const a = await joinNew(c);
    await new Promise((r) => setTimeout(r, 20));
    const b = await joinNew(c);
    const [ja] = await Promise.all([a.joined, b.joined]);
    const took = Date.now() - t0;
    expect(ja.members).toHaveLength(2);
    // group.initial.rebalance.delay.ms is 50 here: one delay, then one extension for the second member.
    expect(took).toBeGreaterThanOrEqual(95);
    expect(took).toBeLessThan(1000);
  });

  it('rejects a member whose protocols share nothing with the group', async () => {
    const { c } = await started();
    const a = await joinNew(c);
    const other = await c.handleJoinGroup(join('', 1000, [{ name: 'RoundRobinAssigner', metadata: Buffer.alloc(0) }]), ctx);
    expect(other.errorCode).toBe(ErrorCode.INCONSISTENT_GROUP_PROTOCOL);
    await a.joined;
  });

  it('commits and fetches offsets, and a new coordinator loads them and the group from the log', async () => {
    const { c, log } = await started();
    const a = await joinNew(c);
    await a.joined;
    await c.handleSyncGroup({ groupId: 'g', generationId: 1, memberId: a.id, groupInstanceId: null, assignments: [{ memberId: a.id, assignment: Buffer.from('A') }] });
    const commit = (offset: number, generationId = 1) =>
      c.handleCommitOffsets({
        groupId: 'g',
        generationId,
        memberId: a.id,
        groupInstanceId: null,
        retentionTimeMs: -1,
        topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: offset, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
      });
    expect((await commit(5))[0]!.partitions[0]!.errorCode).toBe(0);
    expect((await commit(9))[0]!.partitions[0]!.errorCode).toBe(0);
    expect((await commit(1, 7))[0]!.partitions[0]!.errorCode).toBe(ErrorCode.ILLEGAL_GENERATION);
    const fetched = c.handleFetchOffsets('g', [{ name: 't', partitionIndexes: [0, 1] }]);
    expect(fetched.topics[0]!.partitions.map((p) => p.committedOffset)).toEqual([9, -1]);
    expect(c.handleFetchOffsets('g', null).topics).toEqual([{ name: 't', partitions: [expect.objectContaining({ partitionIndex: 0, committedOffset: 9 })] }]);

    c.onResignation(0);
    expect(c.handleFetchOffsets('g', null).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
    const { c: c2 } = await started(log);
    expect(c2.handleFetchOffsets('g', [{ name: 't', partitionIndexes: [0] }]).topics[0]!.partitions[0]!.committedOffset).toBe(9);
    expect(c2.handleDescribeGroup('g')).toMatchObject({ groupState: 'Stable', members: [expect.objectContaining({ memberId: a.id })] });
    expect(c2.handleHeartbeat('g', a.id, 1)).toBe(ErrorCode.NONE);
  });

  it('deletes only empty groups, with tombstones a reload honours', async () => {
    const { c, log } = await started();
    const a = await joinNew(c);
    await a.joined;
    expect(await c.handleDeleteGroups(['g', 'missing'])).toEqual([
      { groupId: 'g', errorCode: ErrorCode.NON_EMPTY_GROUP },
      { groupId: 'missing', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
    ]);
    c.handleLeaveGroup('g', [{ memberId: a.id, groupInstanceId: null }]);
    await new Promise((r) => setTimeout(r, 20));
    expect(c.handleListGroups().groups).toEqual([{ groupId: 'g', protocolType: 'consumer' }]);
    expect(await c.handleDeleteGroups(['g'])).toEqual([{ groupId: 'g', errorCode: 0 }]);
    const { c: c2 } = await started(log);
    expect(c2.handleListGroups().groups).toEqual([]);
  });

  it('answers NOT_COORDINATOR for groups of partitions it does not lead', async () => {
    const c = new GroupCoordinator({ ...config, offsetsTopicNumPartitions: 2 }, new MemoryOffsetsLog(), silentLogger());
    coordinators.push(c);
    c.startup();
    expect((await c.handleJoinGroup(join(''), ctx)).errorCode).toBe(ErrorCode.NOT_COORDINATOR);
  });
});

describe('GroupCoordinator static membership (KIP-345, as Kafka 2.4)', () => {
  const staticJoin = (instanceId: string, memberId = '', rebalanceTimeoutMs = 2000, metadata = Buffer.from([1])): JoinGroupRequest => ({
    ...join(memberId, 5000, [{ name: 'range', metadata }]),
    groupInstanceId: instanceId,
    rebalanceTimeoutMs,
  });
  const sync = (c: GroupCoordinator, memberId: string, generationId: number, instanceId: string | null, assignments: { memberId: string; assignment: Buffer }[] = []) =>
    c.handleSyncGroup({ groupId: 'g', generationId, memberId, groupInstanceId: instanceId, assignments });
  const commit = (c: GroupCoordinator, memberId: string, instanceId: string | null) =>
    c.handleCommitOffsets({
      groupId: 'g',
      generationId: 1,
      memberId,
      groupInstanceId: instanceId,
      retentionTimeMs: -1,
      topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] }],
    });

  /** Two static members a and b, synced into a Stable generation 1 (a leads). */
  async function stableStaticGroup(log?: MemoryOffsetsLog, rebalanceTimeoutMs = 2000) {
    const started1 = await started(log);
    const { c } = started1;
    // A static member joins without MEMBER_ID_REQUIRED, even at JoinGroup v4+.
    const [ja, jb] = await Promise.all([c.handleJoinGroup(staticJoin('a', '', rebalanceTimeoutMs), ctx), c.handleJoinGroup(staticJoin('b', '', rebalanceTimeoutMs), ctx)]);
    expect(ja).toMatchObject({ errorCode: 0, generationId: 1 });
    expect(ja.memberId.startsWith('a-')).toBe(true);
    expect(jb.memberId.startsWith('b-')).toBe(true);
    expect(ja.members.map((m) => m.groupInstanceId).sort()).toEqual(['a', 'b']);
    await Promise.all([
      sync(c, ja.memberId, 1, 'a', [
        { memberId: ja.memberId, assignment: Buffer.from('A') },
        { memberId: jb.memberId, assignment: Buffer.from('B') },
      ]),
      sync(c, jb.memberId, 1, 'b'),
    ]);
    return { ...started1, a: ja.memberId, b: jb.memberId };
  }

  it('lets a restarted instance take its place without a rebalance, and fences the old member id', async () => {
    const { c, a, b } = await stableStaticGroup();
    const again = await c.handleJoinGroup(staticJoin('b'), ctx);
    // The current generation at once, with the old leader so that the new id does not assign.
    expect(again).toMatchObject({ errorCode: 0, generationId: 1, leader: a, members: [] });
    expect(again.memberId).not.toBe(b);
    expect(c.handleDescribeGroup('g').groupState).toBe('Stable');
    expect(c.handleHeartbeat('g', b, 1, 'b')).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect((await sync(c, b, 1, 'b')).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect((await commit(c, b, 'b'))[0]!.partitions[0]!.errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect((await c.handleJoinGroup(staticJoin('b', b), ctx)).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    // The new id holds b's assignment and session.
    expect(await sync(c, again.memberId, 1, 'b')).toMatchObject({ errorCode: 0, assignment: Buffer.from('B') });
    expect(c.handleHeartbeat('g', again.memberId, 1, 'b')).toBe(ErrorCode.NONE);
    expect((await commit(c, again.memberId, 'b'))[0]!.partitions[0]!.errorCode).toBe(ErrorCode.NONE);
    // An instance id the group does not know, with a member id: reset and join again.
    expect((await c.handleJoinGroup(staticJoin('zz', a), ctx)).errorCode).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
    expect(c.handleDescribeGroup('g').members.map((m) => m.groupInstanceId).sort()).toEqual(['a', 'b']);
  });

  it('LeaveGroup v3+ answers per member: by group.instance.id alone, and FENCED_INSTANCE_ID for a stale id', async () => {
    const { c, a, b } = await stableStaticGroup();
    const res = c.handleLeaveGroup('g', [
      { memberId: 'stale', groupInstanceId: 'a' },
      { memberId: '', groupInstanceId: 'b' },
      { memberId: 'nobody', groupInstanceId: null },
    ]);
    expect(res).toEqual({
      errorCode: 0,
      members: [
        { memberId: 'stale', groupInstanceId: 'a', errorCode: ErrorCode.FENCED_INSTANCE_ID },
        { memberId: '', groupInstanceId: 'b', errorCode: ErrorCode.NONE },
        { memberId: 'nobody', groupInstanceId: null, errorCode: ErrorCode.UNKNOWN_MEMBER_ID },
      ],
    });
    expect(c.handleDescribeGroup('g').members.map((m) => m.memberId)).toEqual([a]);
    expect(c.handleHeartbeat('g', a, 1, 'a')).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
    expect(c.handleHeartbeat('g', b, 1, 'b')).toBe(ErrorCode.UNKNOWN_MEMBER_ID);
  });

  it('keeps a static member that does not rejoin a rebalance, and hands leadership to one that did', async () => {
    const { c, a, b } = await stableStaticGroup(undefined, 300);
    // b (a follower) changes its subscription; a, the leader, stays silent.
    const joined = await c.handleJoinGroup(staticJoin('b', b, 300, Buffer.from([2])), ctx);
    expect(joined).toMatchObject({ errorCode: 0, generationId: 2, leader: b });
    // Both are still members: the static a is kept until its session expires.
    expect(joined.members.map((m) => m.memberId).sort()).toEqual([a, b].sort());
    expect(c.handleHeartbeat('g', a, 2, 'a')).toBe(ErrorCode.REBALANCE_IN_PROGRESS);
  });

  it('rebuilds the instance map when a new coordinator loads the group', async () => {
    const log = new MemoryOffsetsLog();
    const { c, a, b } = await stableStaticGroup(log);
    c.onResignation(0);
    const { c: c2 } = await started(log);
    expect(c2.handleHeartbeat('g', a, 1, 'a')).toBe(ErrorCode.NONE);
    expect(c2.handleHeartbeat('g', a, 1, 'b')).toBe(ErrorCode.FENCED_INSTANCE_ID);
    const again = await c2.handleJoinGroup(staticJoin('b'), ctx);
    expect(again).toMatchObject({ errorCode: 0, generationId: 1, leader: a });
    expect(c2.handleHeartbeat('g', b, 1, 'b')).toBe(ErrorCode.FENCED_INSTANCE_ID);
  });
});
