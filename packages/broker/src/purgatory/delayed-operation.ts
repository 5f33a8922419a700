/**
 * An operation that completes when a condition holds or a timeout passes (Kafka's DelayedOperation):
 * acks=all produce waits for the high watermark, a long-poll fetch waits for data.
 * `tryComplete` is re-checked whenever one of its watch keys is touched; completion runs exactly once.
 */
export abstract class DelayedOperation {
  #completed = false;
  #timer: NodeJS.Timeout | undefined;
  readonly delayMs: number;

  constructor(delayMs: number) {
    this.delayMs = delayMs;
  }

  get isCompleted(): boolean {
    return this.#completed;
  }

  /** Checks the condition; calls forceComplete() and returns true when it holds. */
  abstract tryComplete(): boolean;
  /** Runs once, when the operation completes (condition met or expired). */
  protected abstract onComplete(): void;
  /** Runs before onComplete when the operation timed out. */
  protected onExpiration(): void {}

  forceComplete(): boolean {
    if (this.#completed) return false;
    this.#completed = true;
    clearTimeout(this.#timer);
    this.onComplete();
    return true;
  }

  /** @internal armed by the purgatory */
  armTimer(onExpire: () => void): void {
    this.#timer = setTimeout(() => {
      if (this.#completed) return;
      this.onExpiration();
      this.forceComplete();
      onExpire();
    }, Math.max(0, this.delayMs));
  }
}

/**
 * Operations parked by key ("topic-partition"). `checkAndComplete(key)` is called when the log end
 * or high watermark of that partition moves. `shutdown()` completes everything, so no request hangs
 * and no timer outlives the broker.
 */
export class DelayedOperationPurgatory<T extends DelayedOperation> {
  readonly name: string;
  readonly #watchers = new Map<string, Set<T>>();
  readonly #pending = new Set<T>();

  constructor(name: string) {
    this.name = name;
  }

  /** Completes the operation now if possible; otherwise parks it under its keys until completion or timeout. */
  tryCompleteElseWatch(op: T, keys: string[]): boolean {
    if (op.tryComplete()) return true;
    for (const key of keys) {
      let set = this.#watchers.get(key);
      if (!set) this.#watchers.set(key, (set = new Set()));
      set.add(op);
    }
    this.#pending.add(op);
    op.armTimer(() => this.#forget(op, keys));
    // The condition may have become true between the first check and the watch.
    if (op.tryComplete()) this.#forget(op, keys);
    return false;
  }

  #forget(op: T, keys: string[]): void {
    this.#pending.delete(op);
    for (const key of keys) {
      const set = this.#watchers.get(key);
      if (!set) continue;
      set.delete(op);
      if (set.size === 0) this.#watchers.delete(key);
    }
  }

  /** Re-checks the operations watching `key`; returns how many completed. */
  checkAndComplete(key: string): number {
    const set = this.#watchers.get(key);
    if (!set) return 0;
    let completed = 0;
    for (const op of [...set]) {
      if (op.isCompleted) {
        set.delete(op); // completed through another key
      } else if (op.tryComplete()) {
        set.delete(op);
        this.#pending.delete(op);
        completed++;
      }
    }
    if (set.size === 0) this.#watchers.delete(key);
    return completed;
  }

  get size(): number {
    return this.#pending.size;
  }

  shutdown(): void {
    for (const op of [...this.#pending]) op.forceComplete();
    this.#pending.clear();
    this.#watchers.clear();
  }
}
