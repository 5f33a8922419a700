import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import {
  DeleteRecords,
  DescribeConfigs,
  DescribeGroups,
  ElectLeaders,
  FindCoordinator,
  IncrementalAlterConfigs,
  ListGroups,
  OffsetCommit,
  OffsetFetch,
  type DeleteRecordsRequest,
  type DescribeConfigsRequest,
  type ElectLeadersRequest,
  type IncrementalAlterConfigsRequest,
  type OffsetCommitRequest,
} from '@gregor/protocol';
import { FakeCluster } from '../test/fake-cluster.js';
import { Admin } from './admin.js';
import { KafkaClient } from './cluster.js';
import { encodeAssignment } from './consumer-protocol.js';

// The routing of the admin methods kafka-configs, kafka-consumer-groups, kafka-leader-election and
// kafka-delete-records need: which broker each request goes to, and what is retried.
const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup(apis: Parameters<typeof FakeCluster.start>[1]): Promise<{ cluster: FakeCluster; admin: Admin }> {
  const cluster = (await FakeCluster.start([1, 2], apis)).serveData();
  cleanup.push(() => cluster.close());
  const client = new KafkaClient({ brokers: cluster.bootstrap, retryBackoffMs: 5, retryBackoffMaxMs: 20 });
  cleanup.push(() => client.close());
  return { cluster, admin: new Admin(client) };
}

describe('Admin tools', () => {
  it('sends a broker’s configs to that broker, topics and the cluster default to any; maps sources to Kafka’s names', async () => {
    const { cluster, admin } = await setup([DescribeConfigs, IncrementalAlterConfigs]);
    for (const [nodeId, broker] of cluster.brokers) {
      broker.on(DescribeConfigs, (body: DescribeConfigsRequest) => ({
        throttleTimeMs: 0,
        results: body.resources.map((r) => ({
          errorCode: r.resourceType === 4 && r.resourceName !== '' && r.resourceName !== String(nodeId) ? ErrorCode.INVALID_REQUEST : ErrorCode.NONE,
          errorMessage: null,
          resourceType: r.resourceType,
          resourceName: r.resourceName,
          configs: [{ name: 'retention.ms', value: '1000', readOnly: false, configSource: 1, isSensitive: false, synonyms: [{ name: 'retention.ms', value: '1000', source: 1 }, { name: 'log.retention.hours', value: '168', source: 5 }] }],
        })),
      }));
      broker.on(IncrementalAlterConfigs, (body: IncrementalAlterConfigsRequest) => ({
        throttleTimeMs: 0,
        responses: body.resources.map((r) => ({ errorCode: r.resourceName === 'missing' ? ErrorCode.UNKNOWN_TOPIC_OR_PARTITION : 0, errorMessage: null, resourceType: r.resourceType, resourceName: r.resourceName })),
      }));
    }
    const [topic, b2, dflt] = await admin.describeConfigs([{ type: 'topic', name: 't' }, { type: 'broker', name: '2' }, { type: 'broker', name: '' }]);
    expect(topic!.error).toBeNull();
    expect(topic!.entries[0]).toEqual({
      name: 'retention.ms',
      value: '1000',
      source: 'DYNAMIC_TOPIC_CONFIG',
      readOnly: false,
      sensitive: false,
      synonyms: [{ name: 'retention.ms', value: '1000', source: 'DYNAMIC_TOPIC_CONFIG' }, { name: 'log.retention.hours', value: '168', source: 'DEFAULT_CONFIG' }],
    });
    expect(b2!.error).toBeNull(); // answered by broker 2 itself
    expect(dflt!.error).toBeNull();
    const toBroker2 = cluster.broker(2).requestsOf(DescribeConfigs).map((r) => (r.body as DescribeConfigsRequest).resources.map((x) => x.resourceName));
    expect(toBroker2.flat()).toContain('2');
    expect(cluster.broker(1).requestsOf(DescribeConfigs).flatMap((r) => (r.body as DescribeConfigsRequest).resources.map((x) => x.resourceName))).not.toContain('2');

    const results = await admin.incrementalAlterConfigs([
      { resource: { type: 'topic', name: 't' }, ops: [{ name: 'retention.ms', op: 'set', value: '5' }, { name: 'cleanup.policy', op: 'delete' }] },
      { resource: { type: 'topic', name: 'missing' }, ops: [{ name: 'retention.ms', op: 'set', value: '5' }] },
    ]);
    expect(results.map((r) => r.error?.code ?? 0)).toEqual([0, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]);
    const sent = [...cluster.brokers.values()].flatMap((b) => b.requestsOf(IncrementalAlterConfigs)).map((r) => r.body as IncrementalAlterConfigsRequest);
    expect(sent[0]!.resources[0]!.configs).toEqual([{ name: 'retention.ms', configOperation: 0, value: '5' }, { name: 'cleanup.policy', configOperation: 1, value: null }]);
  });

  it('elects leaders at the controller, following it when it moved', async () => {
    const { cluster, admin } = await setup([ElectLeaders]);
    cluster.controllerId = 2;
    for (const [nodeId, broker] of cluster.brokers) {
      broker.on(ElectLeaders, (body: ElectLeadersRequest) => {
        if (nodeId !== cluster.controllerId) return { throttleTimeMs: 0, errorCode: ErrorCode.NOT_CONTROLLER, replicaElectionResults: [] };
        return {
          throttleTimeMs: 0,
          errorCode: 0,
          replicaElectionResults: body.topicPartitions!.map((t) => ({ topic: t.topic, partitionResult: t.partitionId.map((p) => ({ partitionId: p, errorCode: p === 0 ? 0 : ErrorCode.ELECTION_NOT_NEEDED, errorMessage: null })) })),
        };
      });
    }
    await admin.listTopics(); // caches controller 2
    cluster.controllerId = 1;
    const results = await admin.electLeaders('unclean', [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }]);
    expect(results.map((r) => [r.partition, r.error?.code ?? 0])).toEqual([[0, 0], [1, ErrorCode.ELECTION_NOT_NEEDED]]);
    expect((cluster.broker(1).requestsOf(ElectLeaders)[0]!.body as ElectLeadersRequest).electionType).toBe(1);
  });

  it('deletes records at each partition’s leader, again at the new leader after NOT_LEADER_FOR_PARTITION', async () => {
    const { cluster, admin } = await setup([DeleteRecords]);
    cluster.addTopic('d', [1, 2]);
    for (const [nodeId, broker] of cluster.brokers) {
      broker.on(DeleteRecords, (body: DeleteRecordsRequest) => ({
        throttleTimeMs: 0,
        topics: body.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => {
            const leader = cluster.topics.get(t.name)![p.partitionIndex]!.leader === nodeId;
            return { partitionIndex: p.partitionIndex, lowWatermark: leader ? p.offset : -1, errorCode: leader ? 0 : ErrorCode.NOT_LEADER_FOR_PARTITION };
          }),
        })),
      }));
    }
    await admin.describeTopics(['d']);
    cluster.moveLeader('d', 1, 1); // the client still thinks partition 1 is led by broker 2
    const results = await admin.deleteRecords([{ topic: 'd', partition: 0, offset: 5 }, { topic: 'd', partition: 1, offset: 7 }, { topic: 'nope', partition: 0, offset: 1 }]);
    expect(results.map((r) => [r.partition, r.lowWatermark, r.error?.code ?? 0])).toEqual([[0, 5, 0], [1, 7, 0], [0, -1, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION]]);
  });

  it('lists groups from every broker, describes and fetches offsets at the coordinator, resets offsets outside a generation', async () => {
    const { cluster, admin } = await setup([ListGroups, FindCoordinator, DescribeGroups, OffsetFetch, OffsetCommit]);
    const committed: OffsetCommitRequest[] = [];
    for (const [nodeId, broker] of cluster.brokers) {
      broker.on(ListGroups, () => ({ throttleTimeMs: 0, errorCode: 0, groups: nodeId === 1 ? [{ groupId: 'b', protocolType: 'consumer' }] : [{ groupId: 'a', protocolType: '' }] }));
      broker.on(FindCoordinator, () => ({ throttleTimeMs: 0, errorCode: 0, errorMessage: null, nodeId: 2, host: cluster.broker(2).host, port: cluster.broker(2).port }));
      broker.on(DescribeGroups, () => ({
        throttleTimeMs: 0,
        groups: [
          {
            errorCode: nodeId === 2 ? 0 : ErrorCode.NOT_COORDINATOR,
            groupId: 'b',
            groupState: 'Stable',
            protocolType: 'consumer',
            protocolData: 'range',
            members: [{ memberId: 'm1', groupInstanceId: null, clientId: 'c1', clientHost: '/127.0.0.1', memberMetadata: Buffer.alloc(0), memberAssignment: encodeAssignment({ version: 0, partitions: new Map([['t', [1, 0]]]), userData: null }) }],
            authorizedOperations: -2147483648,
          },
        ],
      }));
      broker.on(OffsetFetch, () => ({ throttleTimeMs: 0, errorCode: 0, topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 4, committedLeaderEpoch: -1, metadata: '', errorCode: 0 }, { partitionIndex: 1, committedOffset: -1, committedLeaderEpoch: -1, metadata: '', errorCode: 0 }] }] }));
      broker.on(OffsetCommit, (body: OffsetCommitRequest) => {
        committed.push(body);
        return { throttleTimeMs: 0, topics: body.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: 0 })) })) };
      });
    }
    const listing = await admin.listGroups();
    expect(listing.groups).toEqual([{ groupId: 'a', protocolType: '', coordinator: 2 }, { groupId: 'b', protocolType: 'consumer', coordinator: 1 }]);
    expect(listing.errors).toEqual([]);
    const [b] = await admin.describeGroups(['b']);
    expect(b).toMatchObject({ state: 'Stable', protocol: 'range', coordinator: 2, members: [{ memberId: 'm1', clientId: 'c1', assignment: [{ topic: 't', partition: 0 }, { topic: 't', partition: 1 }] }] });
    expect(await admin.fetchOffsets('b')).toEqual([{ topic: 't', partition: 0, offset: 4, metadata: '' }]);
    await admin.resetOffsets('b', [{ topic: 't', partition: 0, offset: 0 }]);
    expect(committed[0]).toMatchObject({ groupId: 'b', generationId: -1, memberId: '', topics: [{ name: 't', partitions: [{ partitionIndex: 0, committedOffset: 0 }] }] });
  });
});
