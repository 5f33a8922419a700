import type { PartitionStateWithReplicas } from '@gregor/common';

/**
 * The broker's view of the cluster, fed only by the controller's UpdateMetadata requests
 * (Kafka's MetadataCache): client Metadata requests are answered from here, never from ZooKeeper.
 */
export interface BrokerEndpoint {
  listenerName: string;
  host: string;
  port: number;
}

export interface LiveBroker {
  id: number;
  rack: string | null;
  endpoints: BrokerEndpoint[];
}

/** A partition as the last UpdateMetadata (or LeaderAndIsr) described it. */
export interface CachedPartitionState extends PartitionStateWithReplicas {
  topic: string;
  partition: number;
  offlineReplicas: number[];
}

export const LEADER_DURING_DELETE = -2;

export class MetadataCache {
  readonly #brokerId: number;
  #controllerId = -1;
  #liveBrokers = new Map<number, LiveBroker>();
  readonly #topics = new Map<string, Map<number, CachedPartitionState>>();
  clusterId: string | null = null;
  readonly #waiters = new Set<() => void>();

  constructor(brokerId: number) {
    this.#brokerId = brokerId;
  }

  get controllerId(): number {
    return this.#controllerId;
  }

  /** Applies an UpdateMetadata request; returns the topic-partitions deleted by it. */
  update(controllerId: number, liveBrokers: LiveBroker[], states: CachedPartitionState[]): string[] {
    this.#controllerId = controllerId;
    this.#liveBrokers = new Map(liveBrokers.map((b) => [b.id, b]));
    const deleted: string[] = [];
    for (const s of states) {
      if (s.leader === LEADER_DURING_DELETE) {
        const parts = this.#topics.get(s.topic);
        parts?.delete(s.partition);
        if (parts && parts.size === 0) this.#topics.delete(s.topic);
        deleted.push(`${s.topic}-${s.partition}`);
        continue;
      }
      let parts = this.#topics.get(s.topic);
      if (!parts) this.#topics.set(s.topic, (parts = new Map()));
      parts.set(s.partition, { ...s });
    }
    this.#notify();
    return deleted;
  }

  /** LeaderAndIsr on this broker carries fresher leadership than the last UpdateMetadata. */
  updatePartitionLeadership(state: CachedPartitionState): void {
    let parts = this.#topics.get(state.topic);
    if (!parts) this.#topics.set(state.topic, (parts = new Map()));
    parts.set(state.partition, { ...state });
    this.#notify();
  }

  /** Resolves true once `predicate` holds after an update, false after `timeoutMs` (or at once if it holds now). */
  waitFor(predicate: () => boolean, timeoutMs: number): Promise<boolean> {
    if (predicate()) return Promise.resolve(true);
    return new Promise((resolve) => {
      const check = () => {
        if (!predicate()) return;
        finish(true);
      };
      const finish = (ok: boolean) => {
        clearTimeout(timer);
        this.#waiters.delete(check);
        resolve(ok);
      };
      const timer = setTimeout(() => finish(false), Math.max(0, timeoutMs));
      this.#waiters.add(check);
    });
  }

  #notify(): void {
    for (const w of [...this.#waiters]) w();
  }

  aliveBrokers(): LiveBroker[] {
    return [...this.#liveBrokers.values()].sort((a, b) => a.id - b.id);
  }

  aliveBroker(id: number): LiveBroker | undefined {
    return this.#liveBrokers.get(id);
  }

  isBrokerAlive(id: number): boolean {
    return this.#liveBrokers.has(id);
  }

  contains(topic: string): boolean {
    return this.#topics.has(topic);
  }

  allTopics(): string[] {
    return [...this.#topics.keys()].sort();
  }

  partitions(topic: string): CachedPartitionState[] {
    const parts = this.#topics.get(topic);
    if (!parts) return [];
    return [...parts.values()].sort((a, b) => a.partition - b.partition);
  }

  partition(topic: string, partition: number): CachedPartitionState | undefined {
    return this.#topics.get(topic)?.get(partition);
  }

  get localBrokerId(): number {
    return this.#brokerId;
  }
}
