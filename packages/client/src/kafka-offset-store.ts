import { ErrorCode, GregorError, KafkaProtocolError } from '@gregor/common';
import { OffsetCommit, OffsetFetch } from '@gregor/protocol';
import type { KafkaClient } from './cluster.js';
import { COORDINATOR_ERRORS, findGroupCoordinator } from './group-coordinator-lookup.js';
import { retry } from '@gregor/net';

export interface TopicPartition {
  topic: string;
  partition: number;
}

export interface CommittedOffset extends TopicPartition {
  /** The next offset to read. */
  offset: number;
  metadata?: string;
}

/** Who commits: a group member of a generation, or (-1, "") outside any generation (ZooKeeper-style groups). */
export interface CommitGeneration {
  generationId: number;
  memberId: string;
}

const NO_GENERATION: CommitGeneration = { generationId: -1, memberId: '' };

function key(topic: string, partition: number): string {
  return `${topic}\u0000${partition}`;
}

/**
 * Offsets kept by the broker-side coordinator in `__consumer_offsets` (Kafka's `offsets.storage=kafka`):
 * OffsetCommit / OffsetFetch to the group's coordinator, found with FindCoordinator and looked up again after
 * NOT_COORDINATOR or COORDINATOR_NOT_AVAILABLE (coordinator failover). Used by the Reader and by the
 * ZooKeeper consumer connector.
 */
export class KafkaOffsetStore {
  readonly #client: KafkaClient;
  readonly groupId: string;
  readonly #retries: number;
  #coordinator = -1;

  constructor(client: KafkaClient, groupId: string, options: { retries?: number } = {}) {
    this.#client = client;
    this.groupId = groupId;
    this.#retries = options.retries ?? 5;
  }

  /** The coordinator's node id (looked up on first use and after coordinator errors). */
  async coordinator(signal?: AbortSignal): Promise<number> {
    if (this.#coordinator < 0) this.#coordinator = await findGroupCoordinator(this.#client, this.groupId, signal);
    return this.#coordinator;
  }

  /** Forget the coordinator: the next request looks it up again. */
  resetCoordinator(): void {
    this.#coordinator = -1;
  }

  async #withCoordinator<T>(op: (node: number) => Promise<T>): Promise<T> {
    return retry(
      async () => {
        const node = await this.coordinator();
        try {
          return await op(node);
        } catch (error) {
          if (error instanceof GregorError && COORDINATOR_ERRORS.has(error.code)) this.resetCoordinator();
          throw error;
        }
      },
      { retries: this.#retries, retryBackoffMs: 200, retryBackoffMaxMs: 2000 },
    );
  }

  /** Commits; throws the first partition error (ILLEGAL_GENERATION, UNKNOWN_MEMBER_ID… are not retried). */
  async commit(offsets: readonly CommittedOffset[], generation: CommitGeneration = NO_GENERATION): Promise<void> {
    if (offsets.length === 0) return;
    const byTopic = new Map<string, CommittedOffset[]>();
    for (const o of offsets) byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), o]);
    await this.#withCoordinator(async (node) => {
      const res = await this.#client.sendTo(node, OffsetCommit, {
        groupId: this.groupId,
        generationId: generation.generationId,
        memberId: generation.memberId,
        groupInstanceId: null,
        retentionTimeMs: -1,
        topics: [...byTopic].map(([name, list]) => ({
          name,
          partitions: list.map((o) => ({
            partitionIndex: o.partition,
            committedOffset: o.offset,
            committedLeaderEpoch: -1,
            commitTimestamp: -1,
            committedMetadata: o.metadata ?? '',
          })),
        })),
      });
      for (const t of res.topics) {
        for (const p of t.partitions) {
          if (p.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(p.errorCode, `OffsetCommit ${t.name}-${p.partitionIndex} for group ${this.groupId}`);
        }
      }
    });
  }

  /** Committed offsets; a partition with none maps to offset -1. */
  async fetch(partitions: readonly TopicPartition[]): Promise<Map<string, CommittedOffset>> {
    const byTopic = new Map<string, number[]>();
    for (const p of partitions) byTopic.set(p.topic, [...(byTopic.get(p.topic) ?? []), p.partition]);
    return this.#withCoordinator(async (node) => {
      const res = await this.#client.sendTo(node, OffsetFetch, {
        groupId: this.groupId,
        topics: [...byTopic].map(([name, partitionIndexes]) => ({ name, partitionIndexes })),
      });
      if (res.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(res.errorCode, `OffsetFetch for group ${this.groupId}`);
      const out = new Map<string, CommittedOffset>();
      for (const t of res.topics) {
        for (const p of t.partitions) {
          if (p.errorCode !== ErrorCode.NONE) throw new KafkaProtocolError(p.errorCode, `OffsetFetch ${t.name}-${p.partitionIndex} for group ${this.groupId}`);
          out.set(key(t.name, p.partitionIndex), { topic: t.name, partition: p.partitionIndex, offset: p.committedOffset, metadata: p.metadata ?? '' });
        }
      }
      return out;
    });
  }

  /** The map key `fetch()` uses. */
  static key(topic: string, partition: number): string {
    return key(topic, partition);
  }
}
