/** Several FakeBrokers sharing one cluster state that their Metadata answers describe. */
import { ErrorCode } from '@gregor/common';
import { Metadata, type ApiDefinition, type MetadataRequest, type MetadataResponse } from '@gregor/protocol';
import { FakeBroker } from './fake-broker.js';

export interface FakePartition {
  partition: number;
  leader: number;
  leaderEpoch: number;
  replicas: number[];
  isr: number[];
}

export class FakeCluster {
  readonly brokers = new Map<number, FakeBroker>();
  readonly topics = new Map<string, FakePartition[]>();
  controllerId = 1;

  static async start(nodeIds: number[], apis: ApiDefinition<any, any>[]): Promise<FakeCluster> {
    const cluster = new FakeCluster();
    for (const nodeId of nodeIds) {
      const broker = await FakeBroker.start({ apis: [Metadata, ...apis] });
      broker.on(Metadata, (body: MetadataRequest) => cluster.metadata(body));
      cluster.brokers.set(nodeId, broker);
    }
    return cluster;
  }

  broker(nodeId: number): FakeBroker {
    return this.brokers.get(nodeId)!;
  }

  get bootstrap(): string {
    return [...this.brokers.values()].map((b) => `${b.host}:${b.port}`).join(',');
  }

  addTopic(name: string, leaders: number[]): void {
    this.topics.set(
      name,
      leaders.map((leader, partition) => ({ partition, leader, leaderEpoch: 0, replicas: [leader], isr: [leader] })),
    );
  }

  moveLeader(topic: string, partition: number, leader: number): void {
    const p = this.topics.get(topic)![partition]!;
    p.leader = leader;
    p.leaderEpoch++;
  }

  metadata(body: MetadataRequest): MetadataResponse {
    const names = body.topics === null ? [...this.topics.keys()] : body.topics.map((t) => t.name);
    return {
      brokers: [...this.brokers].map(([nodeId, b]) => ({ nodeId, host: b.host, port: b.port, rack: null })),
      clusterId: 'fake-cluster',
      controllerId: this.controllerId,
      topics: names.map((name) => {
        const partitions = this.topics.get(name);
        if (!partitions) return { errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, name, isInternal: false, partitions: [] };
        return {
          errorCode: ErrorCode.NONE,
          name,
          isInternal: false,
          partitions: partitions.map((p) => ({
            errorCode: p.leader < 0 ? ErrorCode.LEADER_NOT_AVAILABLE : ErrorCode.NONE,
            partitionIndex: p.partition,
            leaderId: p.leader,
            leaderEpoch: p.leaderEpoch,
            replicaNodes: p.replicas,
            isrNodes: p.isr,
            offlineReplicas: [],
          })),
        };
      }),
    };
  }

  async close(): Promise<void> {
    await Promise.all([...this.brokers.values()].map((b) => b.close()));
  }
}
