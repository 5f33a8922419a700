import type { KafkaZkClient } from '@gregor/zookeeper';

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  /** The next offset to consume. */
  offset: number;
}

/**
 * Where a group's committed offsets live (`offsets.storage`): ZooKeeperOffsetStore, OffsetManagerStore
 * (Kafka), or DualCommitOffsetStore (both, while a group moves from one to the other).
 */
export interface OffsetStore {
  readonly name: 'zookeeper' | 'kafka';
  /** The committed offset per `topic-partition` key, or null when none was committed. */
  fetch(group: string, partitions: readonly { topic: string; partition: number }[]): Promise<Map<string, number | null>>;
  commit(group: string, offsets: readonly TopicPartitionOffset[]): Promise<void>;
  /** Releases connections; called once, after the connector's last commit. */
  close?(): Promise<void>;
}

/** offsets.storage=zookeeper: /consumers/<group>/offsets/<topic>/<partition>, decimal text. */
export class ZooKeeperOffsetStore implements OffsetStore {
  readonly name = 'zookeeper' as const;
  readonly #zk: KafkaZkClient;

  constructor(zk: KafkaZkClient) {
    this.#zk = zk;
  }

  async fetch(group: string, partitions: readonly { topic: string; partition: number }[]): Promise<Map<string, number | null>> {
    const values = await Promise.all(partitions.map((tp) => this.#zk.getConsumerOffset(group, tp.topic, tp.partition)));
    return new Map(partitions.map((tp, i) => [`${tp.topic}-${tp.partition}`, values[i] === null ? null : Number(values[i])]));
  }

  async commit(group: string, offsets: readonly TopicPartitionOffset[]): Promise<void> {
    await Promise.all(offsets.map((o) => this.#zk.commitConsumerOffset(group, o.topic, o.partition, o.offset)));
  }
}
