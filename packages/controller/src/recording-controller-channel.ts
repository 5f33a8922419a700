import type { ApiDefinition, LeaderAndIsrRequest, UpdateMetadataRequest } from '@gregor/protocol';
import type { ControllerChannel } from './controller-channel-manager.js';
import type { ControllerBrokerInfo } from './controller-context.js';

export interface SentRequest {
  brokerId: number;
  api: string;
  request: unknown;
}

/**
 * A ControllerChannel that records what the controller sends and answers through `respond` (nothing by
 * default), for controller tests without brokers.
 */
export class RecordingControllerChannel implements ControllerChannel {
  readonly sent: SentRequest[] = [];
  readonly brokers = new Set<number>();
  respond: (brokerId: number, api: string, request: unknown) => unknown = () => undefined;

  addBroker(broker: ControllerBrokerInfo): void {
    this.brokers.add(broker.id);
  }

  async removeBroker(id: number): Promise<void> {
    this.brokers.delete(id);
  }

  send<Req, Res>(brokerId: number, api: ApiDefinition<Req, Res>, request: Req, onResponse?: (response: Res) => void): void {
    if (!this.brokers.has(brokerId)) return;
    this.sent.push({ brokerId, api: api.name, request });
    const response = this.respond(brokerId, api.name, request);
    if (response !== undefined && onResponse) setImmediate(() => onResponse(response as Res));
  }

  async shutdown(): Promise<void> {
    this.brokers.clear();
  }

  /** Partition states sent in LeaderAndIsr to `brokerId`, oldest first. */
  leaderAndIsr(brokerId: number): { topic: string; partition: number; leader: number; leaderEpoch: number; isr: number[] }[] {
    return this.sent
      .filter((s) => s.brokerId === brokerId && s.api === 'LeaderAndIsr')
      .flatMap((s) => (s.request as LeaderAndIsrRequest).topicStates ?? [])
      .flatMap((t) => t.partitionStates.map((p) => ({ topic: t.topicName, partition: p.partitionIndex, leader: p.leader, leaderEpoch: p.leaderEpoch, isr: p.isr })));
  }

  /** Partition states sent in UpdateMetadata to `brokerId`, oldest first. */
  updateMetadata(brokerId: number): { topic: string; partition: number; leader: number; offlineReplicas: number[] }[] {
    return this.sent
      .filter((s) => s.brokerId === brokerId && s.api === 'UpdateMetadata')
      .flatMap((s) => (s.request as UpdateMetadataRequest).topicStates ?? [])
      .flatMap((t) => t.partitionStates.map((p) => ({ topic: t.topicName, partition: p.partitionIndex, leader: p.leader, offlineReplicas: p.offlineReplicas ?? [] })));
  }
}
