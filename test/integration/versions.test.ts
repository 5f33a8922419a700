import { readdirSync, utimesSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { Connection } from '@gregor/client';
import {
  ApiVersions,
  CompressionType,
  ControlledShutdown,
  CreateTopics,
  DeleteGroups,
  DeleteTopics,
  DescribeGroups,
  FindCoordinator,
  FrameReader,
  Heartbeat,
  JoinGroup,
  LeaveGroup,
  ListGroups,
  ListOffsets,
  Metadata,
  OffsetCommit,
  OffsetFetch,
  Produce,
  SyncGroup,
  decodeResponseFrame,
  encodeRecordBatch,
  encodeRequestFrame,
  type ApiVersionsResponse,
  type JoinGroupRequest,
} from '@gregor/protocol';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/** One ApiVersions exchange on a fresh socket, with any client software name and version. */
async function apiVersionsV3(port: number, clientSoftwareName: string, clientSoftwareVersion: string): Promise<ApiVersionsResponse> {
  const v3 = ApiVersions.versions.get(3)!;
  const socket = net.connect({ host: '127.0.0.1', port });
  try {
    const frames = new FrameReader();
    const answer = new Promise<Buffer>((resolve, reject) => {
      socket.on('data', (d) => {
        const [frame] = frames.push(d);
        if (frame) resolve(Buffer.from(frame));
      });
      socket.on('error', reject);
      socket.on('close', () => reject(new Error('closed without an answer')));
    });
    socket.write(Buffer.concat(encodeRequestFrame(v3, { correlationId: 9, clientId: 'raw' }, { clientSoftwareName, clientSoftwareVersion })));
    const { correlationId, response } = decodeResponseFrame(await answer, v3);
    expect(correlationId).toBe(9);
    return response;
  } finally {
    socket.destroy();
  }
}

const batch = (value: string) => {
  const now = Date.now();
  return encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: now, records: [{ key: null, value: Buffer.from(value), headers: [], timestamp: now }] });
};

/** The versions Kafka 2.4.1 added over gregor's previous ranges, each exercised against a real broker. */
describe('Kafka 2.4 versions against a broker', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let conn: Connection;
  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'offsets.topic.replication.factor': '1', 'offsets.topic.num.partitions': '1', 'group.initial.rebalance.delay.ms': '0', 'log.segment.bytes': '1048576' });
    conn = new Connection({ host: '127.0.0.1', port: broker.port, clientId: 'versions-test' });
    await conn.connect();
  });
  afterAll(async () => {
    await conn?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it('ApiVersions v3 advertises 2.4 ranges, and answers INVALID_REQUEST (v3 format, no keys) to a bad client software name or version', async () => {
    const ok = await apiVersionsV3(broker.port, 'librdkafka', '2.0.2');
    expect(ok.errorCode).toBe(ErrorCode.NONE);
    const ranges = Object.fromEntries(ok.apiKeys.map((k) => [k.apiKey, [k.minVersion, k.maxVersion]]));
    expect(ranges).toMatchObject({ 0: [0, 8], 1: [0, 11], 2: [0, 5], 4: [0, 4], 7: [0, 3], 8: [0, 8], 9: [0, 6], 11: [0, 6], 13: [0, 4], 15: [0, 5], 19: [0, 5], 20: [0, 4], 42: [0, 2] });
    for (const [name, version] of [['', '1.0'], ['-lead', '1.0'], ['ok', 'trail.'], ['sp ace', '1'], ['ok', '1_0']]) {
      expect(await apiVersionsV3(broker.port, name!, version!)).toEqual({ errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 });
    }
    expect((await apiVersionsV3(broker.port, 'a', 'b.c-d')).errorCode).toBe(ErrorCode.NONE);
  });

  it('CreateTopics v5 echoes the layout and effective configs of a created topic (KIP-525); v4 and failures do not', async () => {
    const v5 = await conn.send(
      CreateTopics,
      {
        topics: [
          { name: 'v5-topic', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [{ name: 'retention.ms', value: '60000' }] },
          { name: 'bad!name', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] },
        ],
        timeoutMs: 10_000,
        validateOnly: false,
      },
      { version: 5 },
    );
    const [created, bad] = v5.topics;
    expect(created).toMatchObject({ name: 'v5-topic', errorCode: 0, numPartitions: 2, replicationFactor: 1, topicConfigErrorCode: 0 });
    const configs = Object.fromEntries(created!.configs!.map((c) => [c.name, c]));
    expect(configs['retention.ms']).toEqual({ name: 'retention.ms', value: '60000', readOnly: false, configSource: 1, isSensitive: false });
    // log.segment.bytes is set in this broker's properties: STATIC_BROKER_CONFIG.
    expect(configs['segment.bytes']).toMatchObject({ value: '1048576', configSource: 4 });
    expect(configs['cleanup.policy']).toMatchObject({ value: 'delete', configSource: 5 });
    expect(bad).toMatchObject({ errorCode: ErrorCode.INVALID_TOPIC_EXCEPTION, numPartitions: -1, replicationFactor: -1, configs: [] });
    const v4 = await conn.send(CreateTopics, { topics: [{ name: 'v4-topic', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 10_000 }, { version: 4 });
    expect(v4.topics[0]).toMatchObject({ errorCode: 0, numPartitions: -1, configs: [] });
  });

  it('Produce v8 answers with empty record_errors and a null error_message', async () => {
    await waitFor(async () => (await conn.send(Metadata, { topics: [{ name: 'v5-topic' }] })).topics[0]!.partitions.every((p) => p.leaderId === 1), 10_000, 'leaders');
    const res = await conn.send(Produce, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'v5-topic', partitionData: [{ index: 0, records: batch('x') }] }] }, { version: 8 });
    expect(res.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 0, recordErrors: [], errorMessage: null });
  });

  it('Metadata v9 and DescribeGroups v5 asked for authorized operations get every supported one when no authorizer is configured', async () => {
    const bits = (...codes: number[]) => codes.reduce((f, c) => f | (1 << c), 0);
    const md = await conn.send(Metadata, { topics: [{ name: 'v5-topic' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: true, includeTopicAuthorizedOperations: true }, { version: 9 });
    // Kafka's AclEntry.supportedOperations: Topic Read..AlterConfigs; Cluster Create, ClusterAction, configs, IdempotentWrite, Alter, Describe.
    expect(md.topics[0]!.topicAuthorizedOperations).toBe(bits(3, 4, 5, 6, 7, 8, 10, 11));
    expect(md.clusterAuthorizedOperations).toBe(bits(5, 7, 8, 9, 10, 11, 12));
    const groups = await conn.send(DescribeGroups, { groups: ['nobody'], includeAuthorizedOperations: true }, { version: 5 });
    expect(groups.groups[0]!.authorizedOperations).toBe(bits(3, 6, 8)); // Group: Read, Delete, Describe
  });

  it('ListOffsets v0 lists segment base offsets before a time, newest first, as Kafka 2.4 does', async () => {
    await conn.send(CreateTopics, { topics: [{ name: 'legacy', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [{ name: 'segment.bytes', value: '100' }] }], timeoutMs: 10_000 });
    await waitFor(async () => (await conn.send(Metadata, { topics: [{ name: 'legacy' }] })).topics[0]!.partitions[0]?.leaderId === 1, 10_000, 'leader');
    // Each batch is bigger than segment.bytes: every one after the first rolls a new segment.
    for (let i = 0; i < 4; i++) {
      const r = await conn.send(Produce, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'legacy', partitionData: [{ index: 0, records: batch(`value-${i}`) }] }] });
      expect(r.responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    }
    const dir = join(broker.logDir, 'legacy-0');
    const segments = readdirSync(dir).filter((f) => f.endsWith('.log')).sort();
    expect(segments.map((f) => Number(f.slice(0, 20)))).toEqual([0, 1, 2, 3]);
    // Segment i last modified at (i + 1) * 1000 s.
    segments.forEach((f, i) => utimesSync(join(dir, f), (i + 1) * 1000, (i + 1) * 1000));
    const ask = async (timestamp: number, maxNumOffsets: number, replicaId = -1) => {
      const res = await conn.send(ListOffsets, { replicaId, topics: [{ name: 'legacy', partitions: [{ partitionIndex: 0, timestamp, maxNumOffsets }] }] }, { version: 0 });
      const p = res.topics[0]!.partitions[0]!;
      expect(p.errorCode).toBe(0);
      return p.oldStyleOffsets;
    };
    expect(await ask(-1, 1)).toEqual([4]);
    expect(await ask(-2, 1)).toEqual([0]);
    expect(await ask(-1, 10)).toEqual([4, 3, 2, 1, 0]);
    expect(await ask(2_500_000, 10)).toEqual([1, 0]);
    expect(await ask(500_000, 10)).toEqual([]);
    expect(await ask(-1, 2, -2)).toEqual([4, 3]);
    const missing = await conn.send(ListOffsets, { replicaId: -1, topics: [{ name: 'nope', partitions: [{ partitionIndex: 0, timestamp: -1, maxNumOffsets: 1 }] }] }, { version: 0 });
    expect(missing.topics[0]!.partitions[0]).toMatchObject({ errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, oldStyleOffsets: [] });
  });

  it('a static member (KIP-345) goes through the group APIs at their flexible versions: restart without rebalance, fencing, leave by instance id', async () => {
    // The first FindCoordinator creates __consumer_offsets: COORDINATOR_NOT_AVAILABLE until it is loaded.
    const coordinator = await waitFor(async () => {
      const res = await conn.send(FindCoordinator, { key: 'static', keyType: 0 }, { version: 3 });
      return res.errorCode === ErrorCode.NONE ? res : null;
    }, 15_000, 'coordinator');
    expect(coordinator).toMatchObject({ errorCode: 0, errorMessage: 'NONE', nodeId: 1, host: '127.0.0.1', port: broker.port });
    const join = (memberId: string): JoinGroupRequest => ({
      groupId: 'static',
      sessionTimeoutMs: 10_000,
      rebalanceTimeoutMs: 10_000,
      memberId,
      groupInstanceId: 'instance-1',
      protocolType: 'consumer',
      protocols: [{ name: 'range', metadata: Buffer.from([0, 0, 0, 0, 0, 0]) }],
    });
    const joined = await conn.send(JoinGroup, join(''), { version: 6 });
    expect(joined).toMatchObject({ errorCode: 0, generationId: 1, protocolName: 'range' });
    expect(joined.memberId.startsWith('instance-1-')).toBe(true);
    expect(joined.members).toEqual([{ memberId: joined.memberId, groupInstanceId: 'instance-1', metadata: Buffer.from([0, 0, 0, 0, 0, 0]) }]);
    const synced = await conn.send(
      SyncGroup,
      { groupId: 'static', generationId: 1, memberId: joined.memberId, groupInstanceId: 'instance-1', assignments: [{ memberId: joined.memberId, assignment: Buffer.from('A') }] },
      { version: 4 },
    );
    expect(synced).toMatchObject({ errorCode: 0, assignment: Buffer.from('A') });
    const beat = (memberId: string) => conn.send(Heartbeat, { groupId: 'static', generationId: 1, memberId, groupInstanceId: 'instance-1' }, { version: 4 });
    expect((await beat(joined.memberId)).errorCode).toBe(0);
    const commit = await conn.send(
      OffsetCommit,
      {
        groupId: 'static',
        generationId: 1,
        memberId: joined.memberId,
        groupInstanceId: 'instance-1',
        retentionTimeMs: -1,
        topics: [{ name: 'v5-topic', partitions: [{ partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: 'm' }] }],
      },
      { version: 8 },
    );
    expect(commit.topics[0]!.partitions[0]!.errorCode).toBe(0);
    const fetched = await conn.send(OffsetFetch, { groupId: 'static', topics: null }, { version: 6 });
    expect(fetched).toMatchObject({ errorCode: 0, topics: [{ name: 'v5-topic', partitions: [{ partitionIndex: 0, committedOffset: 1, metadata: 'm', errorCode: 0 }] }] });

    // The instance restarts: a join without member id gets a new one and the same generation, with no rebalance.
    const again = await conn.send(JoinGroup, join(''), { version: 6 });
    expect(again).toMatchObject({ errorCode: 0, generationId: 1, leader: joined.memberId, members: [] });
    expect(again.memberId).not.toBe(joined.memberId);
    expect((await beat(joined.memberId)).errorCode).toBe(ErrorCode.FENCED_INSTANCE_ID);
    expect((await beat(again.memberId)).errorCode).toBe(0);
    const described = await conn.send(DescribeGroups, { groups: ['static'], includeAuthorizedOperations: false }, { version: 5 });
    expect(described.groups[0]).toMatchObject({ groupState: 'Stable', members: [{ memberId: again.memberId, groupInstanceId: 'instance-1', clientId: 'versions-test' }] });

    // LeaveGroup v4: a stale member id is fenced; the instance id alone removes the member.
    const left = await conn.send(
      LeaveGroup,
      {
        groupId: 'static',
        memberId: '',
        members: [
          { memberId: joined.memberId, groupInstanceId: 'instance-1' },
          { memberId: '', groupInstanceId: 'instance-1' },
        ],
      },
      { version: 4 },
    );
    expect(left).toMatchObject({
      errorCode: 0,
      members: [
        { memberId: joined.memberId, groupInstanceId: 'instance-1', errorCode: ErrorCode.FENCED_INSTANCE_ID },
        { memberId: '', groupInstanceId: 'instance-1', errorCode: 0 },
      ],
    });
    await waitFor(async () => (await conn.send(DescribeGroups, { groups: ['static'], includeAuthorizedOperations: false })).groups[0]!.groupState === 'Empty', 10_000, 'empty group');
    expect((await conn.send(ListGroups, {}, { version: 3 })).groups).toContainEqual({ groupId: 'static', protocolType: 'consumer' });
    expect((await conn.send(DeleteGroups, { groupsNames: ['static', 'never'] }, { version: 2 })).results).toEqual([
      { groupId: 'static', errorCode: 0 },
      { groupId: 'never', errorCode: ErrorCode.GROUP_ID_NOT_FOUND },
    ]);
  });

  it('ControlledShutdown v0 (request header v0, no client id) and v3 (flexible) reach the controller', async () => {
    // Broker 99 is not live: the controller answers BROKER_NOT_AVAILABLE, in whichever version was asked.
    for (const version of [0, 3]) {
      expect(await conn.send(ControlledShutdown, { brokerId: 99, brokerEpoch: -1 }, { version })).toEqual({ errorCode: ErrorCode.BROKER_NOT_AVAILABLE, remainingPartitions: [] });
    }
  });

  it('DeleteTopics v4 deletes a topic', async () => {
    const res = await conn.send(DeleteTopics, { topicNames: ['v4-topic', 'unknown-topic'], timeoutMs: 10_000 }, { version: 4 });
    expect(res.responses).toEqual([
      { name: 'v4-topic', errorCode: 0 },
      { name: 'unknown-topic', errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
    ]);
  });
});
