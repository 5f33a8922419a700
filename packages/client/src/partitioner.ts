/**
 * Kafka's default partitioner: murmur2 of the key bytes for keyed records, and a "sticky"
 * partition for records without a key, re-drawn each time a batch for the topic is completed
 * (KIP-480), so keyless records fill a few large batches instead of many small ones.
 */

/** Kafka's murmur2 (Utils.murmur2): seed 0x9747b28c, m 0x5bd1e995, r 24, over the raw bytes. */
export function murmur2(data: Uint8Array): number {
  const length = data.length;
  const m = 0x5bd1e995;
  const r = 24;
  let h = 0x9747b28c ^ length;
  const whole = length & ~3;
  for (let i = 0; i < whole; i += 4) {
    let k = data[i]! | (data[i + 1]! << 8) | (data[i + 2]! << 16) | (data[i + 3]! << 24);
    k = Math.imul(k, m);
    k ^= k >>> r;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  const tail = length & 3;
  if (tail === 3) h ^= data[whole + 2]! << 16;
  if (tail >= 2) h ^= data[whole + 1]! << 8;
  if (tail >= 1) {
    h ^= data[whole]!;
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

/** Kafka's Utils.toPositive: clears the sign bit (not Math.abs, which fails for MIN_VALUE). */
export function toPositive(n: number): number {
  return n & 0x7fffffff;
}

export type RecordKey = Buffer | string | null | undefined;

export function keyBytes(key: RecordKey): Buffer | null {
  if (key === null || key === undefined) return null;
  return typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
}

/** The partition of a keyed record, as every Kafka client computes it. */
export function defaultPartition(key: Uint8Array | string, numPartitions: number): number {
  if (!Number.isInteger(numPartitions) || numPartitions <= 0) throw new RangeError(`numPartitions must be a positive integer, got ${numPartitions}`);
  const bytes = typeof key === 'string' ? Buffer.from(key, 'utf8') : key;
  return toPositive(murmur2(bytes)) % numPartitions;
}

export interface PartitionerOptions {
  /** Source of randomness for the sticky partition (tests pass a seeded one). */
  random?: () => number;
}

export class DefaultPartitioner {
  readonly #sticky = new Map<string, number>();
  readonly #random: () => number;

  constructor(options: PartitionerOptions = {}) {
    this.#random = options.random ?? Math.random;
  }

  /**
   * @param available partitions that currently have a leader; keyless records prefer them
   *   (keyed records never do: a key must always map to the same partition).
   */
  partition(topic: string, key: RecordKey, numPartitions: number, available: readonly number[] = []): number {
    const bytes = keyBytes(key);
    if (bytes !== null) return defaultPartition(bytes, numPartitions);
    const current = this.#sticky.get(topic);
    if (current !== undefined && current < numPartitions) return current;
    return this.#draw(topic, numPartitions, available, undefined);
  }

  /** A batch for `topic` was completed: the next keyless records go to another partition. */
  onNewBatch(topic: string, numPartitions: number, available: readonly number[] = []): void {
    this.#draw(topic, numPartitions, available, this.#sticky.get(topic));
  }

  #draw(topic: string, numPartitions: number, available: readonly number[], previous: number | undefined): number {
    const usable = available.filter((p) => p < numPartitions);
    const pool = usable.length > 0 ? usable : Array.from({ length: numPartitions }, (_, i) => i);
    let choice = pool[Math.floor(this.#random() * pool.length)]!;
    // Like Kafka, change partition when there is another one to change to.
    if (choice === previous && pool.length > 1) {
      choice = pool[(pool.indexOf(choice) + 1 + Math.floor(this.#random() * (pool.length - 1))) % pool.length]!;
    }
    this.#sticky.set(topic, choice);
    return choice;
  }
}
