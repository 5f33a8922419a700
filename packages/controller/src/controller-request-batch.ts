import { ErrorCode, type Logger } from '@gregor/common';
import { LeaderAndIsr, StopReplica, UpdateMetadata } from '@gregor/protocol';
import type { ControllerChannel } from './controller-channel-manager.js';
import { tpKey, type ControllerContext, type TopicPartition } from './controller-context.js';

/** Kafka's SecurityProtocol ids, as UpdateMetadata endpoints carry them. */
const SECURITY_PROTOCOL_ID: Record<string, number> = { PLAINTEXT: 0, SSL: 1, SASL_PLAINTEXT: 2, SASL_SSL: 3 };

/** Leader -2 in UpdateMetadata tells brokers the partition is being deleted. */
export const LEADER_DURING_DELETE = -2;

/**
 * Collects the requests one controller decision produces and sends them together
 * (Kafka's ControllerBrokerRequestBatch): LeaderAndIsr per broker for the partitions it hosts,
 * UpdateMetadata to every live broker, StopReplica to replicas being removed.
 */
export class ControllerRequestBatch {
  readonly #ctx: ControllerContext;
  /** Live leaders are named by their inter-broker endpoint: followers fetch there (Kafka's broker.node(interBrokerListenerName)). */
  readonly #interBrokerListenerName: string | undefined;
  readonly #channel: ControllerChannel;
  readonly #controllerId: number;
  readonly #log: Logger;
  readonly #leaderAndIsr = new Map<number, Map<string, TopicPartition & { isNew: boolean }>>();
  readonly #updateMetadataPartitions = new Map<string, TopicPartition>();
  #updateMetadataBrokers = new Set<number>();
  readonly #stopReplica = new Map<number, { delete: boolean; partitions: TopicPartition[] }[]>();
  readonly #onStopReplicaResult: (topic: string, partition: number, brokerId: number, errorCode: number) => void;
  readonly #onLeaderAndIsrResult: (brokerId: number, partitionErrors: (TopicPartition & { errorCode: number })[]) => void;

  constructor(
    ctx: ControllerContext,
    channel: ControllerChannel,
    controllerId: number,
    log: Logger,
    onStopReplicaResult: (topic: string, partition: number, brokerId: number, errorCode: number) => void,
    onLeaderAndIsrResult: (brokerId: number, partitionErrors: (TopicPartition & { errorCode: number })[]) => void = () => {},
    interBrokerListenerName?: string,
  ) {
    this.#interBrokerListenerName = interBrokerListenerName;
    this.#ctx = ctx;
    this.#channel = channel;
    this.#controllerId = controllerId;
    this.#log = log;
    this.#onStopReplicaResult = onStopReplicaResult;
    this.#onLeaderAndIsrResult = onLeaderAndIsrResult;
  }

  /** LeaderAndIsr for `tp` to each of `brokerIds`, plus UpdateMetadata of `tp` to all live brokers. */
  addLeaderAndIsr(brokerIds: number[], tp: TopicPartition, isNew = false): void {
    for (const id of brokerIds) {
      if (!this.#ctx.liveBrokers.has(id)) continue;
      let m = this.#leaderAndIsr.get(id);
      if (!m) this.#leaderAndIsr.set(id, (m = new Map()));
      m.set(tpKey(tp.topic, tp.partition), { ...tp, isNew });
    }
    this.addUpdateMetadata([...this.#ctx.liveBrokers.keys()], [tp]);
  }

  addUpdateMetadata(brokerIds: number[], partitions: TopicPartition[]): void {
    for (const id of brokerIds) this.#updateMetadataBrokers.add(id);
    for (const tp of partitions) this.#updateMetadataPartitions.set(tpKey(tp.topic, tp.partition), tp);
  }

  addStopReplica(brokerId: number, tp: TopicPartition, deletePartition: boolean): void {
    if (!this.#ctx.liveBrokers.has(brokerId)) return;
    let list = this.#stopReplica.get(brokerId);
    if (!list) this.#stopReplica.set(brokerId, (list = []));
    let group = list.find((g) => g.delete === deletePartition);
    if (!group) list.push((group = { delete: deletePartition, partitions: [] }));
    group.partitions.push(tp);
  }

  #partitionState(tp: TopicPartition) {
    const l = this.#ctx.leadership.get(tpKey(tp.topic, tp.partition));
    const deleting = this.#ctx.topicsToBeDeleted.has(tp.topic);
    const replicas = this.#ctx.replicasOf(tp.topic, tp.partition);
    return {
      partitionIndex: tp.partition,
      controllerEpoch: l?.controllerEpoch ?? this.#ctx.epoch,
      leader: deleting ? LEADER_DURING_DELETE : (l?.leader ?? -1),
      leaderEpoch: l?.leaderEpoch ?? -1,
      isr: l?.isr ?? [],
      zkVersion: l?.zkVersion ?? -1,
      replicas,
      // KIP-112: a replica on a dead broker or in a failed log dir.
      offlineReplicas: replicas.filter((r) => !this.#ctx.isReplicaOnline(r, tp)),
    };
  }

  #groupByTopic<T>(tps: TopicPartition[], map: (tp: TopicPartition) => T): { topicName: string; partitionStates: T[] }[] {
    const byTopic = new Map<string, T[]>();
    for (const tp of tps) {
      let list = byTopic.get(tp.topic);
      if (!list) byTopic.set(tp.topic, (list = []));
      list.push(map(tp));
    }
    return [...byTopic].map(([topicName, partitionStates]) => ({ topicName, partitionStates }));
  }

  #liveBrokersForRequest() {
    return [...this.#ctx.liveBrokers.values()].map((b) => ({
      id: b.id,
      rack: b.rack,
      endpoints: b.endpoints.map((e) => ({ port: e.port, host: e.host, listener: e.listenerName, securityProtocol: SECURITY_PROTOCOL_ID[e.securityProtocol] ?? 0 })),
    }));
  }

  /** Sends everything collected, then clears the batch. */
  send(): void {
    const epoch = this.#ctx.epoch;
    for (const [brokerId, parts] of this.#leaderAndIsr) {
      const tps = [...parts.values()];
      const leaders = new Set(tps.map((tp) => this.#ctx.leadership.get(tpKey(tp.topic, tp.partition))?.leader ?? -1));
      const request = {
        controllerId: this.#controllerId,
        controllerEpoch: epoch,
        brokerEpoch: Number(this.#ctx.liveBrokers.get(brokerId)?.epoch ?? -1n),
        topicStates: this.#groupByTopic(tps, (tp) => {
          // KIP-455: LeaderAndIsr v3+ carries what a reassignment adds and removes; older versions leave them out.
          const moving = this.#ctx.reassignments.get(tpKey(tp.topic, tp.partition));
          return {
            ...this.#partitionState(tp),
            isNew: parts.get(tpKey(tp.topic, tp.partition))!.isNew,
            addingReplicas: moving?.adding ?? [],
            removingReplicas: moving?.removing ?? [],
          };
        }),
        liveLeaders: [...leaders]
          .map((id) => this.#ctx.liveBrokers.get(id))
          .filter((b) => b !== undefined)
          .map((b) => {
            const e = b.endpoints.find((x) => x.listenerName === this.#interBrokerListenerName) ?? b.endpoints[0]!;
            return { brokerId: b.id, hostName: e.host, port: e.port };
          }),
      };
      this.#channel.send(brokerId, LeaderAndIsr, request, (response) => {
        if (response && response.errorCode !== ErrorCode.NONE) {
          this.#log.warn({ broker: brokerId, errorCode: response.errorCode }, 'LeaderAndIsr refused');
          return;
        }
        // KAFKA_STORAGE_ERROR names replicas in a failed log dir (KIP-112); the controller takes them offline.
        const errors = (response?.partitionErrors ?? []).map((e) => ({ topic: e.topicName, partition: e.partitionIndex, errorCode: e.errorCode }));
        this.#onLeaderAndIsrResult(brokerId, errors);
      });
    }
    if (this.#updateMetadataBrokers.size > 0) {
      const tps = [...this.#updateMetadataPartitions.values()];
      const request = {
        controllerId: this.#controllerId,
        controllerEpoch: epoch,
        brokerEpoch: -1,
        topicStates: this.#groupByTopic(tps, (tp) => this.#partitionState(tp)),
        liveBrokers: this.#liveBrokersForRequest(),
      };
      for (const brokerId of this.#updateMetadataBrokers) {
        if (!this.#ctx.liveBrokers.has(brokerId)) continue;
        this.#channel.send(brokerId, UpdateMetadata, { ...request, brokerEpoch: Number(this.#ctx.liveBrokers.get(brokerId)!.epoch) });
      }
    }
    for (const [brokerId, groups] of this.#stopReplica) {
      for (const g of groups) {
        const byTopic = new Map<string, number[]>();
        for (const tp of g.partitions) {
          let l = byTopic.get(tp.topic);
          if (!l) byTopic.set(tp.topic, (l = []));
          l.push(tp.partition);
        }
        const request = {
          controllerId: this.#controllerId,
          controllerEpoch: epoch,
          brokerEpoch: Number(this.#ctx.liveBrokers.get(brokerId)?.epoch ?? -1n),
          deletePartitions: g.delete,
          topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
        };
        this.#channel.send(brokerId, StopReplica, request, (response) => {
          if (!g.delete) return;
          for (const tp of g.partitions) {
            const pe = response?.partitionErrors?.find((e) => e.topicName === tp.topic && e.partitionIndex === tp.partition);
            this.#onStopReplicaResult(tp.topic, tp.partition, brokerId, response ? (response.errorCode || pe?.errorCode || 0) : ErrorCode.NETWORK_EXCEPTION);
          }
        });
      }
    }
    this.#leaderAndIsr.clear();
    this.#updateMetadataPartitions.clear();
    this.#updateMetadataBrokers = new Set();
    this.#stopReplica.clear();
  }
}
