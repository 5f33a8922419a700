/** Several FakeBrokers sharing one cluster state that their Metadata answers describe. */
import { ErrorCode } from '@gregor/common';
import {
  Fetch,
  ListOffsets,
  Metadata,
  Produce,
  readBatchHeader,
  setBaseOffset,
  type ApiDefinition,
  type FetchRequest,
  type FetchResponse,
  type ListOffsetsRequest,
  type ListOffsetsResponse,
  type MetadataRequest,
  type MetadataResponse,
  type ProduceRequest,
  type ProduceResponse,
} from '@gregor/protocol';
import { FakeBroker, NO_RESPONSE } from './fake-broker.js';

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

  /** The brokers always speak Metadata, Produce, Fetch and ListOffsets; `apis` adds more. */
  static async start(nodeIds: number[], apis: ApiDefinition<any, any>[] = []): Promise<FakeCluster> {
    const cluster = new FakeCluster();
    for (const nodeId of nodeIds) {
      const broker = await FakeBroker.start({ apis: [Metadata, Produce, Fetch, ListOffsets, ...apis] });
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

  /** Record batches per "topic-partition", with their base offsets assigned. */
  readonly logs = new Map<string, Buffer[]>();
  /** Lets a test make a broker answer a produce or fetch with an error code. */
  fault: ((nodeId: number, api: 'produce' | 'fetch', topic: string, partition: number) => number | undefined) | undefined;

  logEndOffset(topic: string, partition: number): number {
    const log = this.logs.get(`${topic}-${partition}`) ?? [];
    return log.length === 0 ? 0 : readBatchHeader(log[log.length - 1]!).lastOffset + 1;
  }

  append(topic: string, partition: number, batch: Buffer): number {
    const baseOffset = this.logEndOffset(topic, partition);
    const copy = Buffer.from(batch);
    setBaseOffset(copy, 0, baseOffset);
    const key = `${topic}-${partition}`;
    this.logs.set(key, [...(this.logs.get(key) ?? []), copy]);
    return baseOffset;
  }

  #errorFor(nodeId: number, api: 'produce' | 'fetch', topic: string, partition: number): number {
    const p = this.topics.get(topic)?.[partition];
    if (!p) return ErrorCode.UNKNOWN_TOPIC_OR_PARTITION;
    if (p.leader !== nodeId) return ErrorCode.NOT_LEADER_FOR_PARTITION;
    return this.fault?.(nodeId, api, topic, partition) ?? ErrorCode.NONE;
  }

  /** Makes every broker serve Produce, Fetch and ListOffsets from `logs`, as leader of its partitions only. */
  serveData(): this {
    for (const [nodeId, broker] of this.brokers) {
      broker.on(Produce, (body: ProduceRequest) => {
        const response: ProduceResponse = {
          throttleTimeMs: 0,
          responses: body.topicData.map((t) => ({
            name: t.name,
            partitionResponses: t.partitionData.map((p) => {
              const errorCode = this.#errorFor(nodeId, 'produce', t.name, p.index);
              const baseOffset = errorCode === ErrorCode.NONE ? this.append(t.name, p.index, p.records!) : -1;
              return { index: p.index, errorCode, baseOffset, logAppendTimeMs: -1, logStartOffset: 0 };
            }),
          })),
        };
        return body.acks === 0 ? NO_RESPONSE : response;
      });
      broker.on(Fetch, (body: FetchRequest): FetchResponse => ({
        throttleTimeMs: 0,
        errorCode: 0,
        sessionId: 0,
        responses: body.topics.map((t) => ({
          topic: t.topic,
          partitionResponses: t.partitions.map((p) => {
            const errorCode = this.#errorFor(nodeId, 'fetch', t.topic, p.partition);
            const highWatermark = this.logEndOffset(t.topic, p.partition);
            const chosen: Buffer[] = [];
            let size = 0;
            if (errorCode === ErrorCode.NONE) {
              for (const batch of this.logs.get(`${t.topic}-${p.partition}`) ?? []) {
                if (readBatchHeader(batch).lastOffset < p.fetchOffset) continue;
                if (chosen.length > 0 && size + batch.length > p.partitionMaxBytes) {
                  // Like a real log read cut at max bytes: the last batch may come partially.
                  const room = p.partitionMaxBytes - size;
                  if (room > 0) chosen.push(batch.subarray(0, room));
                  break;
                }
                chosen.push(batch);
                size += batch.length;
              }
            }
            return {
              partition: p.partition,
              errorCode,
              highWatermark,
              lastStableOffset: highWatermark,
              logStartOffset: 0,
              abortedTransactions: null,
              recordSet: Buffer.concat(chosen),
            };
          }),
        })),
      }));
      broker.on(ListOffsets, (body: ListOffsetsRequest): ListOffsetsResponse => ({
        throttleTimeMs: 0,
        topics: body.topics.map((t) => ({
          name: t.name,
          partitions: t.partitions.map((p) => {
            const errorCode = this.#errorFor(nodeId, 'fetch', t.name, p.partitionIndex);
            const log = this.logs.get(`${t.name}-${p.partitionIndex}`) ?? [];
            let offset = this.logEndOffset(t.name, p.partitionIndex);
            if (p.timestamp === -2) offset = 0;
            else if (p.timestamp >= 0) {
              const hit = log.map((b) => readBatchHeader(b)).find((h) => h.maxTimestamp >= p.timestamp);
              offset = hit ? hit.baseOffset : -1;
            }
            return { partitionIndex: p.partitionIndex, errorCode, timestamp: -1, offset, leaderEpoch: 0 };
          }),
        })),
      }));
    }
    return this;
  }

  async close(): Promise<void> {
    await Promise.all([...this.brokers.values()].map((b) => b.close()));
  }
}
