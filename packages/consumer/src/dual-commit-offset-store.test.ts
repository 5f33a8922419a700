import { describe, expect, it } from 'vitest';
import { DualCommitOffsetStore } from './dual-commit-offset-store.js';
import type { OffsetStore, TopicPartitionOffset } from './offset-store.js';

/** An in-memory store that records the order of commits across stores. */
class MemoryStore implements OffsetStore {
  readonly name: 'zookeeper' | 'kafka';
  readonly offsets = new Map<string, number>();
  readonly #journal: string[];
  constructor(name: 'zookeeper' | 'kafka', journal: string[]) {
    this.name = name;
    this.#journal = journal;
  }
  async fetch(_group: string, partitions: readonly { topic: string; partition: number }[]): Promise<Map<string, number | null>> {
    return new Map(partitions.map((p) => [`${p.topic}-${p.partition}`, this.offsets.get(`${p.topic}-${p.partition}`) ?? null]));
  }
  async commit(_group: string, offsets: readonly TopicPartitionOffset[]): Promise<void> {
    if (this.name === 'kafka' && offsets.some((o) => o.offset < 0)) throw new Error('refused');
    this.#journal.push(this.name);
    for (const o of offsets) this.offsets.set(`${o.topic}-${o.partition}`, o.offset);
  }
}

describe('DualCommitOffsetStore', () => {
  it('starts from the larger of the two offsets, null only when neither has one', async () => {
    const journal: string[] = [];
    const kafka = new MemoryStore('kafka', journal);
    const zk = new MemoryStore('zookeeper', journal);
    kafka.offsets.set('t-0', 10).set('t-1', 3);
    zk.offsets.set('t-0', 7).set('t-1', 9).set('t-2', 4);
    const got = await new DualCommitOffsetStore(kafka, zk).fetch('g', [0, 1, 2, 3].map((partition) => ({ topic: 't', partition })));
    expect([...got]).toEqual([['t-0', 10], ['t-1', 9], ['t-2', 4], ['t-3', null]]);
  });

  it('commits to Kafka, then ZooKeeper; a failed Kafka commit writes nothing to ZooKeeper', async () => {
    const journal: string[] = [];
    const kafka = new MemoryStore('kafka', journal);
    const zk = new MemoryStore('zookeeper', journal);
    const dual = new DualCommitOffsetStore(kafka, zk);
    await dual.commit('g', [{ topic: 't', partition: 0, offset: 5 }]);
    expect(journal).toEqual(['kafka', 'zookeeper']);
    expect([kafka.offsets.get('t-0'), zk.offsets.get('t-0')]).toEqual([5, 5]);
    await expect(dual.commit('g', [{ topic: 't', partition: 0, offset: -2 }])).rejects.toThrow('refused');
    expect(zk.offsets.get('t-0')).toBe(5);
  });
});
