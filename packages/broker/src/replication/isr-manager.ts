import { backoffMs, sleep, type Logger } from '@gregor/common';
import { ZkError, ZkErrorCode, type KafkaZkClient } from '@gregor/zookeeper';
import type { IsrWrite, IsrWriter, IsrWriteResult } from '../cluster/isr-writer.js';

/** The ZooKeeper calls the ISR writer makes. */
export type IsrZk = Pick<KafkaZkClient, 'updatePartitionState' | 'getPartitionState' | 'createIsrChangeNotification'>;

/**
 * Writes the leaders' ISR changes to ZooKeeper (Kafka's ZkPartitionStateStore + ReplicaManager's ISR propagation).
 * Each change is a conditional write of the state znode on the zkVersion the leader knows. Its outcome must be known
 * before the leader drops the change: on BADVERSION, and on any failure that may have been applied anyway (a timeout,
 * a lost connection), the state is re-read, retrying until it can be, and compared with what was written.
 * Committed changes are announced in /isr_change_notification so the controller refreshes every broker's metadata.
 */
export class IsrManager implements IsrWriter {
  readonly #zk: IsrZk;
  readonly #log: Logger;
  readonly #changed = new Map<string, { topic: string; partition: number }>();
  readonly #timer: NodeJS.Timeout;
  readonly #abort = new AbortController();
  readonly #retryBackoffMs: number;
  /** Counters for metrics. */
  shrinks = 0;
  expands = 0;

  constructor(zk: IsrZk, log: Logger, propagateIntervalMs = 2500, retryBackoffMs = 500) {
    this.#zk = zk;
    this.#log = log;
    this.#retryBackoffMs = retryBackoffMs;
    this.#timer = setInterval(() => void this.#propagate(), propagateIntervalMs);
    this.#timer.unref();
  }

  async writeIsr(w: IsrWrite): Promise<IsrWriteResult> {
    const state = { leader: w.leader, leaderEpoch: w.leaderEpoch, isr: w.isr, controllerEpoch: w.controllerEpoch };
    try {
      const zkVersion = await this.#zk.updatePartitionState(w.topic, w.partition, state, w.expectedZkVersion);
      return this.#committed(w, zkVersion);
    } catch (err) {
      const definite = err instanceof ZkError && (err.zkCode === ZkErrorCode.BAD_VERSION || err.zkCode === ZkErrorCode.NO_NODE);
      if (!definite) this.#log.warn({ partition: `${w.topic}-${w.partition}`, isr: w.isr, err: (err as Error).message }, 'ISR write may or may not have been applied; re-reading the state');
      return this.#resolve(w);
    }
  }

  /** Reads the state znode until it can, and tells what became of the write. */
  async #resolve(w: IsrWrite): Promise<IsrWriteResult> {
    for (let attempt = 0; !this.#abort.signal.aborted; attempt++) {
      try {
        const current = await this.#zk.getPartitionState(w.topic, w.partition);
        if (!current) return { outcome: 'superseded' }; // the topic is being deleted
        const s = current.state;
        if (s.leader === w.leader && s.leaderEpoch === w.leaderEpoch && sameSet(s.isr, w.isr)) return this.#committed(w, current.zkVersion);
        if (current.zkVersion === w.expectedZkVersion) return { outcome: 'notApplied' };
        this.#log.warn(
          { partition: `${w.topic}-${w.partition}`, cachedZkVersion: w.expectedZkVersion, zkVersion: current.zkVersion, leaderEpoch: s.leaderEpoch },
          'ISR update refused: the partition state moved on; waiting for the controller',
        );
        return { outcome: 'superseded' };
      } catch (err) {
        this.#log.warn({ partition: `${w.topic}-${w.partition}`, err: (err as Error).message, attempt }, 'cannot read the partition state yet; retrying');
        await sleep(backoffMs(attempt, this.#retryBackoffMs, 10 * this.#retryBackoffMs), this.#abort.signal);
      }
    }
    return { outcome: 'unresolved' };
  }

  #committed(w: IsrWrite, zkVersion: number): IsrWriteResult {
    if (w.change === 'shrink') this.shrinks++;
    else this.expands++;
    this.#changed.set(`${w.topic}-${w.partition}`, { topic: w.topic, partition: w.partition });
    return { outcome: 'committed', zkVersion };
  }

  async #propagate(): Promise<void> {
    if (this.#changed.size === 0) return;
    const partitions = [...this.#changed.values()];
    this.#changed.clear();
    try {
      await this.#zk.createIsrChangeNotification(partitions);
    } catch (err) {
      this.#log.warn({ err: (err as Error).message }, 'ISR change notification failed; retrying');
      for (const tp of partitions) this.#changed.set(`${tp.topic}-${tp.partition}`, tp);
    }
  }

  /** Flushes pending notifications now (tests, shutdown). */
  flush(): Promise<void> {
    return this.#propagate();
  }

  shutdown(): void {
    clearInterval(this.#timer);
    this.#abort.abort();
  }
}

function sameSet(a: readonly number[], b: readonly number[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
