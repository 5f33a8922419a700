// Test support: writes unique values with acks=all and remembers exactly which were acknowledged, and when.
import { KafkaClient, Producer } from '@gregor/client';

export class VerifyingProducer {
  readonly acked = new Set<string>();
  readonly ackTimes: number[] = [];
  readonly errors = new Map<string, number>();
  #client: KafkaClient;
  #producer: Producer;
  #stop = false;
  #loop: Promise<void> | null = null;
  #next = 0;
  readonly topic: string;
  readonly prefix: string;

  constructor(bootstrap: string, topic: string, prefix = 'v') {
    this.topic = topic;
    this.prefix = prefix;
    this.#client = new KafkaClient({ brokers: bootstrap, clientId: 'verifying-producer', requestTimeoutMs: 10_000, metadataMaxAgeMs: 1000 });
    this.#producer = new Producer(this.#client, { acks: -1, deliveryTimeoutMs: 15_000, requestTimeoutMs: 5000, retryBackoffMs: 100, retryBackoffMaxMs: 500 });
  }

  /** Sends small batches of fresh values as fast as acks allow, at most `ratePerSec` values per second. */
  start(ratePerSec = 500, batch = 10): void {
    this.#loop = (async () => {
      const intervalMs = (1000 * batch) / ratePerSec;
      while (!this.#stop) {
        const started = Date.now();
        const values = Array.from({ length: batch }, () => `${this.prefix}-${this.#next++}`);
        try {
          await this.#producer.send({ topic: this.topic, messages: values.map((v) => ({ key: v, value: v })) });
          const now = Date.now();
          for (const v of values) this.acked.add(v);
          this.ackTimes.push(now);
        } catch (err) {
          const name = (err as { codeName?: string }).codeName ?? (err as Error).message.slice(0, 60);
          this.errors.set(name, (this.errors.get(name) ?? 0) + 1);
        }
        const wait = intervalMs - (Date.now() - started);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    })();
  }

  /** Time of the first acknowledgement at or after `t`, or null. */
  firstAckAfter(t: number): number | null {
    return this.ackTimes.find((x) => x >= t) ?? null;
  }

  /** Waits until at least `n` more values are acknowledged (bounded). */
  async waitForMoreAcks(n: number, timeoutMs = 30_000): Promise<void> {
    const target = this.acked.size + n;
    const deadline = Date.now() + timeoutMs;
    while (this.acked.size < target) {
      if (Date.now() > deadline) throw new Error(`acks stalled: ${this.acked.size}/${target}; errors ${JSON.stringify([...this.errors])}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  async stop(): Promise<void> {
    this.#stop = true;
    await this.#loop;
    await this.#client.close();
  }
}
