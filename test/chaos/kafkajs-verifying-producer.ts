// Chaos-test support: a verifying producer on kafkajs (any security the Kafka instance has: SASL_SSL in the
// secure profile). Each send goes to one partition, round robin, with acks=all; its values count as
// acknowledged only when that partition is in the send result without an error code.
import type { Kafka, Producer } from 'kafkajs';

export class KafkajsVerifyingProducer {
  readonly acked = new Set<string>();
  readonly ackTimes: number[] = [];
  /** Partition of each entry of ackTimes. */
  readonly ackPartitions: number[] = [];
  readonly errors = new Map<string, number>();
  readonly #producer: Producer;
  readonly #topic: string;
  readonly #partitions: number[];
  #stop = false;
  #loop: Promise<void> | null = null;
  #next = 0;

  constructor(kafka: Kafka, topic: string, partitions: number[]) {
    this.#topic = topic;
    this.#partitions = partitions;
    // Not idempotent: a retried batch may be written twice, which the loss check allows.
    this.#producer = kafka.producer({ allowAutoTopicCreation: false, retry: { retries: 3, initialRetryTime: 100, maxRetryTime: 1000 } });
  }

  /** Connects, then sends batches of fresh values until stop(), at most `ratePerSec` values per second. */
  async start(ratePerSec = 300, batch = 10): Promise<void> {
    await this.#producer.connect();
    this.#loop = (async () => {
      const intervalMs = (1000 * batch) / ratePerSec;
      while (!this.#stop) {
        const started = Date.now();
        const partition = this.#partitions[this.#next % this.#partitions.length]!;
        const values = Array.from({ length: batch }, () => `s-${this.#next++}`);
        try {
          const result = await this.#producer.send({ topic: this.#topic, acks: -1, timeout: 5000, messages: values.map((v) => ({ partition, key: v, value: v })) });
          if (result.some((r) => r.topicName === this.#topic && r.partition === partition && r.errorCode === 0)) {
            for (const v of values) this.acked.add(v);
            this.ackTimes.push(Date.now());
            this.ackPartitions.push(partition);
          } else {
            this.#count(`no ack for partition ${partition}: ${JSON.stringify(result)}`);
          }
        } catch (err) {
          this.#count((err as { type?: string }).type ?? (err as Error).name ?? 'error');
        }
        const wait = intervalMs - (Date.now() - started);
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
    })();
  }

  #count(name: string): void {
    this.errors.set(name, (this.errors.get(name) ?? 0) + 1);
  }

  /** Time of the first acknowledgement at or after `t` (of `partition`, if given), or null. */
  firstAckAfter(t: number, partition?: number): number | null {
    return this.ackTimes.find((x, i) => x >= t && (partition === undefined || this.ackPartitions[i] === partition)) ?? null;
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
    await this.#producer.disconnect();
  }
}
