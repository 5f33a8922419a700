// Chaos-test support: reads every partition of a topic from the beginning, continuously, while faults
// happen, and remembers every value it saw. A failed consume loop resumes from its own next offset.
import { Consumer, KafkaClient } from '@gregor/client';

export class VerifyingConsumer {
  readonly seen = new Set<string>();
  readonly errors = new Map<string, number>();
  readonly topic: string;
  readonly #client: KafkaClient;
  readonly #positions = new Map<number, number>();
  readonly #abort = new AbortController();
  #loops: Promise<void>[] = [];

  constructor(bootstrap: string, topic: string) {
    this.topic = topic;
    this.#client = new KafkaClient({ brokers: bootstrap, clientId: 'verifying-consumer', requestTimeoutMs: 10_000, metadataMaxAgeMs: 1000 });
  }

  start(partitions: number[]): void {
    this.#loops = partitions.map((p) => this.#run(p));
  }

  async #run(partition: number): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      const consumer = new Consumer(this.#client, { maxWaitMs: 500, retries: 1_000_000, retryBackoffMs: 100, retryBackoffMaxMs: 500 });
      try {
        const from = this.#positions.get(partition) ?? 'earliest';
        for await (const r of consumer.consume({ topic: this.topic, partitions: [partition], from, signal })) {
          if (r.value) this.seen.add(r.value.toString());
          this.#positions.set(partition, r.offset + 1);
        }
      } catch (err) {
        if (signal.aborted) return;
        const name = (err as { codeName?: string }).codeName ?? (err as Error).message.slice(0, 60);
        this.errors.set(name, (this.errors.get(name) ?? 0) + 1);
        await new Promise((r) => setTimeout(r, 500));
      }
    }
  }

  /** Values of `expected` not seen yet, after waiting up to `timeoutMs` for them. */
  async missing(expected: Iterable<string>, timeoutMs: number): Promise<string[]> {
    const deadline = Date.now() + timeoutMs;
    let missing = [...expected].filter((v) => !this.seen.has(v));
    while (missing.length > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250));
      missing = missing.filter((v) => !this.seen.has(v));
    }
    return missing;
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.allSettled(this.#loops);
    await this.#client.close();
  }
}
