// Records the cluster's state as ZooKeeper holds it, over time: each partition's state znode (leader,
// leader epoch, ISR, znode version), /controller and /brokers/ids. A one-shot watch re-reads at once on a
// change and a poll backs it up; the znode version tells the checker when a change was missed.
import { brokerPath, decodePartitionState, partitionStatePath, type KafkaZkClient } from '@gregor/zookeeper';
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
        const node = await this.#zk.zk.getDataOrNull(partitionStatePath(this.#topic, partition), watcher);
        if (watcher && node) armed = true;
        if (node && node.stat.version !== this.#lastVersion.get(partition)) {
          const state = decodePartitionState(this.#topic, partition, node.data);
          const before = this.latest.get(partition);
          this.#lastVersion.set(partition, node.stat.version);
          this.latest.set(partition, { leader: state.leader, isr: state.isr, leaderEpoch: state.leaderEpoch });
          const event: Omit<StateEvent, 'index' | 'time'> = { f: 'partition-state', type: 'info', process: 'zookeeper', partition, leader: state.leader, leaderEpoch: state.leaderEpoch, isr: [...state.isr], zkVersion: node.stat.version };
          // Brokers that joined the ISR: were they registered when it was written? (Only live brokers may join.)
          const joined = before ? state.isr.filter((b) => !before.isr.includes(b)) : [];
          const joinedUnregistered: number[] = [];
          for (const b of joined) {
            const registration = await this.#zk.zk.getDataOrNull(brokerPath(b)).catch(() => undefined);
            if (registration === undefined) continue; // unknown: never guess
            if (registration === null || registration.stat.czxid > node.stat.mzxid) joinedUnregistered.push(b);
          }
          this.#history.record(joined.length > 0 ? { ...event, joinedUnregistered } : event);
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
