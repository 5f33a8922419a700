import { describe, expect, it } from 'vitest';
import { DelayedOperation, DelayedOperationPurgatory } from './delayed-operation.js';

class WaitFor extends DelayedOperation {
  result: 'done' | 'expired' | null = null;
  expired = false;
  constructor(delay: number, readonly cond: () => boolean) {
    super(delay);
  }
  tryComplete(): boolean {
    return this.cond() ? this.forceComplete() : false;
  }
  protected override onExpiration(): void {
    this.expired = true;
  }
  protected override onComplete(): void {
    this.result = this.expired ? 'expired' : 'done';
  }
}

describe('DelayedOperationPurgatory', () => {
  it('completes at once when the condition already holds', () => {
    const p = new DelayedOperationPurgatory<WaitFor>('t');
    const op = new WaitFor(1000, () => true);
    expect(p.tryCompleteElseWatch(op, ['a'])).toBe(true);
    expect(op.result).toBe('done');
    expect(p.size).toBe(0);
  });

  it('completes when a watched key is checked after the condition turns true, exactly once', async () => {
    const p = new DelayedOperationPurgatory<WaitFor>('t');
    let ready = false;
    const op = new WaitFor(5000, () => ready);
    expect(p.tryCompleteElseWatch(op, ['a', 'b'])).toBe(false);
    expect(p.checkAndComplete('a')).toBe(0);
    ready = true;
    expect(p.checkAndComplete('b')).toBe(1);
    expect(p.checkAndComplete('a')).toBe(0);
    expect(op.result).toBe('done');
    expect(p.size).toBe(0);
  });

  it('expires after its delay and shutdown completes the rest', async () => {
    const p = new DelayedOperationPurgatory<WaitFor>('t');
    const op = new WaitFor(20, () => false);
    const other = new WaitFor(60_000, () => false);
    p.tryCompleteElseWatch(op, ['a']);
    p.tryCompleteElseWatch(other, ['a']);
    await new Promise((r) => setTimeout(r, 60));
    expect(op.result).toBe('expired');
    expect(p.size).toBe(1);
    p.shutdown();
    expect(other.result).toBe('done');
    expect(p.size).toBe(0);
  });
});
