import { ErrorCode, KafkaProtocolError, type Logger } from '@gregor/common';
import { Connection, NetworkError } from '@gregor/client';
import { Metadata } from '@gregor/protocol';

export interface BrokerEndpoint {
  brokerId: number;
  host: string;
  port: number;
}

export interface PartitionLeader {
  topic: string;
  partition: number;
  leader: BrokerEndpoint;
}

/**
 * Topic metadata from the brokers registered in ZooKeeper, tried in random order until one answers
 * (Kafka's ClientUtils.fetchTopicMetadata). Connections are kept per address between calls.
 */
export class MetadataChannel {
  readonly #clientId: string;
  readonly #timeoutMs: number;
  readonly #log: Logger;
  readonly #connections = new Map<string, Connection>();

  constructor(clientId: string, timeoutMs: number, log: Logger) {
    this.#clientId = clientId;
    this.#timeoutMs = timeoutMs;
    this.#log = log;
  }

  /** Leaders of the partitions of `topics` that have one (partitions without a leader are left out). */
  async leaders(brokers: readonly BrokerEndpoint[], topics: readonly string[]): Promise<PartitionLeader[]> {
    let lastError: unknown = new NetworkError('no broker registered in ZooKeeper');
    for (const broker of shuffle([...brokers])) {
      try {
        const response = await (await this.#connection(broker)).send(Metadata, { topics: topics.map((name) => ({ name })), allowAutoTopicCreation: false });
        const endpoints = new Map(response.brokers.map((b) => [b.nodeId, { brokerId: b.nodeId, host: b.host, port: b.port }]));
        const out: PartitionLeader[] = [];
        for (const t of response.topics) {
          for (const p of t.partitions) {
            const leader = endpoints.get(p.leaderId);
            if (p.errorCode === ErrorCode.NONE && leader) out.push({ topic: t.name, partition: p.partitionIndex, leader });
          }
        }
        return out;
      } catch (error) {
        this.#log.debug({ broker: broker.brokerId, err: (error as Error).message }, 'metadata request failed, trying another broker');
        lastError = error;
      }
    }
    throw lastError instanceof Error ? lastError : new KafkaProtocolError(ErrorCode.NETWORK_EXCEPTION, String(lastError));
  }

  async #connection(broker: BrokerEndpoint): Promise<Connection> {
    const k = `${broker.host}:${broker.port}`;
    let c = this.#connections.get(k);
    if (!c || c.isClosed) {
      c = new Connection({ host: broker.host, port: broker.port, clientId: this.#clientId, requestTimeoutMs: this.#timeoutMs, connectTimeoutMs: Math.min(this.#timeoutMs, 5000) });
      this.#connections.set(k, c);
    }
    await c.connect();
    return c;
  }

  async close(): Promise<void> {
    const all = [...this.#connections.values()];
    this.#connections.clear();
    await Promise.all(all.map((c) => c.close().catch(() => {})));
  }
}

function shuffle<T>(items: T[]): T[] {
  for (let i = items.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
