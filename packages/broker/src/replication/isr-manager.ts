import type { Logger } from '@gregor/common';
import { ZkError, ZkErrorCode, type KafkaZkClient } from '@gregor/zookeeper';
import type { Partition } from '../cluster/partition.js';

/**
 * The leader's ISR changes (Kafka's Partition.maybeShrinkIsr/maybeExpandIsr + ReplicaManager's
 * ISR propagation): each change is a conditional write of the state znode on its zkVersion; on a
 * stale version the leader re-reads and obeys what is there. Changed partitions are announced in
 * /isr_change_notification so the controller refreshes every broker's metadata.
 */
export class IsrManager {
  readonly #zk: KafkaZkClient;
  readonly #log: Logger;
  readonly #pending = new Set<string>();
  readonly #changed = new Map<string, { topic: string; partition: number }>();
  readonly #timer: NodeJS.Timeout;
  /** Counters for metrics. */
  shrinks = 0;
  expands = 0;

  constructor(zk: KafkaZkClient, log: Logger, propagateIntervalMs = 2500) {
    this.#zk = zk;
    this.#log = log;
    this.#timer = setInterval(() => void this.#propagate(), propagateIntervalMs);
    this.#timer.unref();
  }

  /** Writes `newIsr` for partition `p` (leader only). Resolves true if it took effect. */
  async updateIsr(p: Partition, newIsr: number[], reason: 'shrink' | 'expand'): Promise<boolean> {
    if (this.#pending.has(p.key) || !p.isLeader) return false;
    this.#pending.add(p.key);
    const state = { leader: p.leaderReplicaId, leaderEpoch: p.leaderEpoch, isr: newIsr, controllerEpoch: p.controllerEpoch };
    const epochAtStart = p.leaderEpoch;
    try {
      const zkVersion = await this.#zk.updatePartitionState(p.topic, p.partition, state, p.zkVersion);
      if (p.leaderEpoch !== epochAtStart || !p.isLeader) return false; // leadership changed meanwhile
      const old = p.isr;
      p.isr = newIsr;
      p.zkVersion = zkVersion;
      if (reason === 'shrink') this.shrinks++;
      else this.expands++;
      this.#log.info({ partition: p.key, from: old, to: newIsr, leaderEpoch: p.leaderEpoch }, reason === 'shrink' ? 'ISR shrunk' : 'ISR expanded');
      this.#changed.set(p.key, { topic: p.topic, partition: p.partition });
      return true;
    } catch (err) {
      if (err instanceof ZkError && err.zkCode === ZkErrorCode.BAD_VERSION) {
        // Someone else (the controller) wrote the state: accept it only if it says what we meant to write.
        const current = await this.#zk.getPartitionState(p.topic, p.partition).catch(() => null);
        if (current && current.state.leader === state.leader && current.state.leaderEpoch === state.leaderEpoch && sameSet(current.state.isr, newIsr)) {
          p.isr = newIsr;
          p.zkVersion = current.zkVersion;
          return true;
        }
        this.#log.warn({ partition: p.key, cachedZkVersion: p.zkVersion }, 'ISR update refused: the partition state moved on; waiting for the controller');
        return false;
      }
      this.#log.warn({ partition: p.key, err: (err as Error).message }, 'ISR update failed');
      return false;
    } finally {
      this.#pending.delete(p.key);
    }
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
  }
}

function sameSet(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((x) => b.includes(x));
}
