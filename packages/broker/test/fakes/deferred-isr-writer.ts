import type { IsrWrite, IsrWriter, IsrWriteResult } from '../../src/cluster/isr-writer.js';

export interface PendingIsrWrite {
  write: IsrWrite;
  answer(result: IsrWriteResult): Promise<void>;
  fail(err: Error): Promise<void>;
}

/** An ISR writer whose writes stay in flight until the test answers them: ZooKeeper's timing, under test control. */
export class DeferredIsrWriter implements IsrWriter {
  readonly pending: PendingIsrWrite[] = [];
  readonly all: IsrWrite[] = [];

  writeIsr(write: IsrWrite): Promise<IsrWriteResult> {
    this.all.push(write);
    return new Promise((resolve, reject) => {
      const settle = async (fn: () => void) => {
        this.pending.splice(this.pending.indexOf(entry), 1);
        fn();
        // Let the partition's `.then` run before the test looks.
        await new Promise((r) => setImmediate(r));
      };
      const entry: PendingIsrWrite = {
        write,
        answer: (result) => settle(() => resolve(result)),
        fail: (err) => settle(() => reject(err)),
      };
      this.pending.push(entry);
    });
  }

  /** The only write in flight (fails the test if there is not exactly one). */
  only(): PendingIsrWrite {
    if (this.pending.length !== 1) throw new Error(`expected one ISR write in flight, found ${this.pending.length}`);
    return this.pending[0]!;
  }
}
