// Records the cluster's state as ZooKeeper holds it, over time: each partition's state znode (leader,
// leader epoch, ISR, znode version), /controller and /brokers/ids. A one-shot watch re-reads at once on a
// change and a poll backs it up; the znode version tells the checker when a change was missed.
import type { KafkaZkClient } from '@gregor/zookeeper';
import type { History, StateEvent } from './history.js';
import { sleep } from './writers.js';

export class StateWatcher {
  readonly #zk: KafkaZkClient;
  readonly #history: History;
  readonly #topic: string;
  readonly #abort = new AbortController();
  #loops: Promise<void>[] = [];
  readonly #lastVersion = new Map<number, number>();
  #lastController: number | null | undefined = undefined;
  #lastBrokers = '';
  /** Latest state per partition (for choosing fault targets). */
  readonly latest = new Map<number, { leader: number; isr: number[]; leaderEpoch: number }>();

  constructor(zk: KafkaZkClient, history: History, topic: string) {
    this.#zk = zk;
    this.#history = history;
    this.#topic = topic;
  }

  start(partitions: number[], pollMs = 100): void {
    this.#loops = [...partitions.map((p) => this.#watchPartition(p, pollMs)), this.#watchCluster(pollMs * 2)];
  }

  async #watchPartition(partition: number, pollMs: number): Promise<void> {
    const signal = this.#abort.signal;
    let armed = false;
    let wake: (() => void) | null = null;
    while (!signal.aborted) {
      try {
        const watcher = armed
          ? undefined
          : () => {
              armed = false;
              wake?.();
            };
        const s = await this.#zk.getPartitionState(this.#topic, partition, watcher);
        if (watcher && s) armed = true;
        if (s && s.zkVersion !== this.#lastVersion.get(partition)) {
          const before = this.latest.get(partition);
          this.#lastVersion.set(partition, s.zkVersion);
          this.latest.set(partition, { leader: s.state.leader, isr: s.state.isr, leaderEpoch: s.state.leaderEpoch });
          const event: Omit<StateEvent, 'index' | 'time'> = { f: 'partition-state', type: 'info', process: 'zookeeper', partition, leader: s.state.leader, leaderEpoch: s.state.leaderEpoch, isr: [...s.state.isr], zkVersion: s.zkVersion };
          // An ISR that grew: which brokers were registered then (only live brokers may join an ISR).
          const grew = before !== undefined && s.state.isr.some((b) => !before.isr.includes(b));
          const registeredBrokers = grew ? await this.#zk.getBrokerIds().catch(() => undefined) : undefined;
          this.#history.record(registeredBrokers ? { ...event, registeredBrokers: registeredBrokers.sort((a, b) => a - b) } : event);
        }
      } catch {
        armed = false; // the session may have moved: set the watch again
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
        void sleep(pollMs, signal).then(resolve);
      });
      wake = null;
    }
  }

  async #watchCluster(pollMs: number): Promise<void> {
    const signal = this.#abort.signal;
    while (!signal.aborted) {
      try {
        const controllerId = await this.#zk.getControllerId();
        if (controllerId !== this.#lastController) {
          this.#lastController = controllerId;
          this.#history.record({ f: 'controller', type: 'info', process: 'zookeeper', controllerId });
        }
        const brokerIds = (await this.#zk.getBrokerIds()).sort((a, b) => a - b);
        if (brokerIds.join(',') !== this.#lastBrokers) {
          this.#lastBrokers = brokerIds.join(',');
          this.#history.record({ f: 'brokers', type: 'info', process: 'zookeeper', brokerIds });
        }
      } catch {
        // ZooKeeper unreachable for the test client: try again
      }
      await sleep(pollMs, signal);
    }
  }

  get controllerId(): number | null {
    return this.#lastController ?? null;
  }

  async stop(): Promise<void> {
    this.#abort.abort();
    await Promise.allSettled(this.#loops);
  }
}
