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
