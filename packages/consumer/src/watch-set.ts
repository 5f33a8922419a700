import type { ZkWatcher } from '@gregor/zookeeper';

/**
 * ZooKeeper watches are one-shot and the client library keeps every watcher function registered on a
 * path until it fires, so re-arming on every rebalance would pile up listeners on a path that never
 * changes. A WatchSet arms each watch (by key) once, and again only after it fired, failed to
 * register, or the session changed.
 */
export class WatchSet {
  readonly #armed = new Set<string>();

  /** Runs `read` with the watcher when the watch is not armed, else without one. */
  async read<T>(key: string, watcher: ZkWatcher, read: (watcher: ZkWatcher | undefined) => Promise<T>): Promise<T> {
    if (this.#armed.has(key)) return read(undefined);
    this.#armed.add(key);
    const once: ZkWatcher = (event) => {
      this.#armed.delete(key);
      return watcher(event);
    };
    try {
      return await read(once);
    } catch (error) {
      this.#armed.delete(key);
      throw error;
    }
  }

  /** A new session has no watches. */
  reset(): void {
    this.#armed.clear();
  }
}
