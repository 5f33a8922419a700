import type { OffsetStore, TopicPartitionOffset } from './offset-store.js';

/**
 * dual.commit.enabled with offsets.storage=kafka — Kafka 0.8.2's path for moving a group's offsets from
 * ZooKeeper to Kafka: commits go to the offset manager, then to ZooKeeper; the starting offset is the
 * larger of the two, so a group that committed only to ZooKeeper resumes where it was, and members
 * still on offsets.storage=zookeeper keep seeing current offsets.
 */
export class DualCommitOffsetStore implements OffsetStore {
  readonly name = 'kafka' as const;
  readonly #kafka: OffsetStore;
  readonly #zookeeper: OffsetStore;

  constructor(kafka: OffsetStore, zookeeper: OffsetStore) {
    this.#kafka = kafka;
    this.#zookeeper = zookeeper;
  }

  async commit(group: string, offsets: readonly TopicPartitionOffset[]): Promise<void> {
    await this.#kafka.commit(group, offsets);
    await this.#zookeeper.commit(group, offsets);
  }

  async fetch(group: string, partitions: readonly { topic: string; partition: number }[]): Promise<Map<string, number | null>> {
    const kafka = await this.#kafka.fetch(group, partitions);
    const zookeeper = await this.#zookeeper.fetch(group, partitions);
    return new Map(
      partitions.map(({ topic, partition }) => {
        const key = `${topic}-${partition}`;
        const k = kafka.get(key) ?? null;
        const z = zookeeper.get(key) ?? null;
        return [key, k === null ? z : z === null ? k : Math.max(k, z)];
      }),
    );
  }

  async close(): Promise<void> {
    await Promise.all([this.#kafka.close?.(), this.#zookeeper.close?.()]);
  }
}
