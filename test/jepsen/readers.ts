// History readers: one consumer per partition reading from offset 0 continuously while faults happen,
// recording every record with its offset and the high watermark the leader reported. After an error it
// asks again from its own position (never skips, never resets), so any gap or step back is the broker's.
import { errorName as kafkaErrorName, ErrorCode, silentLogger } from '@gregor/common';
import { fetchPartition, KafkaClient } from '@gregor/client';
import { errorName, type History } from './history.js';
import { sleep } from './writers.js';

export class Readers {
  readonly #history: History;
  readonly #bootstrap: string;
  readonly #topic: string;
  readonly #abort = new AbortController();
  readonly #clients: KafkaClient[] = [];
  #loops: Promise<void>[] = [];
  /** Next offset to read, per partition. */
  readonly positions = new Map<number, number>();

  constructor(history: History, bootstrap: string, topic: string) {
    this.#history = history;
    this.#bootstrap = bootstrap;
    this.#topic = topic;
  }

  start(partitions: number[]): void {
    this.#loops = partitions.map((p) => this.#run(p));
  }

  async #run(partition: number): Promise<void> {
    const process = `r${partition}`;
    const client = new KafkaClient({ brokers: this.#bootstrap, clientId: `jepsen-${process}`, requestTimeoutMs: 3000, connectTimeoutMs: 3000, metadataMaxAgeMs: 1000, logger: silentLogger() });
    this.#clients.push(client);
    const signal = this.#abort.signal;
    let position = 0;
    let lastHw = -1;
    this.positions.set(partition, position);
    while (!signal.aborted) {
      try {
        const r = await fetchPartition(client, { topic: this.#topic, partition, offset: position, maxWaitMs: 200 });
        const records = r.records.filter((x) => x.value !== null).map((x): [number, string] => [x.offset, x.value!.toString()]);
        if (records.length > 0 || r.highWatermark !== lastHw) {
          this.#history.record({ f: 'poll', type: 'ok', process, partition, fetchOffset: position, records, highWatermark: r.highWatermark });
        }
        lastHw = r.highWatermark;
        if (r.records.length > 0) position = r.records[r.records.length - 1]!.offset + 1;
        else if (r.nextOffset > position) position = r.nextOffset;
        this.positions.set(partition, position);
      } catch (err) {
        if (signal.aborted) break;
        const code = (err as { code?: unknown }).code;
        const name = typeof code === 'number' ? kafkaErrorName(code) : errorName(err);
        // A Kafka error code is the broker's answer (nothing read); anything else leaves it unknown.
        this.#history.record({ f: 'poll', type: typeof code === 'number' && code !== ErrorCode.NONE ? 'fail' : 'info', process, partition, fetchOffset: position, error: name });
        await client.refreshMetadata([this.#topic]).catch(() => undefined);
        await sleep(100, signal);
      }
    }
  }

  /** Waits until every reader's position reaches `ends` (partition -> offset); false when time ran out. */
  async caughtUp(ends: Map<number, number>, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      if ([...ends].every(([p, end]) => (this.positions.get(p) ?? 0) >= end)) return true;
      await sleep(100);
    }
    return false;
  }

  async stop(): Promise<void> {
    if (this.#abort.signal.aborted) return;
    this.#abort.abort();
    await Promise.allSettled(this.#loops);
    await Promise.allSettled(this.#clients.map((c) => c.close()));
  }
}
