import { describe, expect, it } from 'vitest';
import { backoffMs, withTimeout, TimeoutError, sleep, whenAborted } from '@gregor/common';

describe('async helpers', () => {
  it('whenAborted calls back once on abort, at once for a signal already aborted, never after its remover ran', () => {
    const calls: string[] = [];
    const later = new AbortController();
    whenAborted(later.signal, () => calls.push('later'));
    const removed = new AbortController();
    whenAborted(removed.signal, () => calls.push('removed'))();
    const done = new AbortController();
    done.abort();
    whenAborted(done.signal, () => calls.push('already'));
    expect(calls).toEqual(['already']);
    later.abort();
    removed.abort();
    later.abort();
    expect(calls).toEqual(['already', 'later']);
  });

  it('backoff stays within [ceiling/2, ceiling] and is capped', () => {
    for (let attempt = 0; attempt < 30; attempt++) {
      const ms = backoffMs(attempt, 100, 5000, () => 0.999);
      expect(ms).toBeLessThanOrEqual(5000);
      expect(ms).toBeGreaterThanOrEqual(50);
    }
    expect(backoffMs(0, 100, 5000, () => 0)).toBe(50);
  });

  it('withTimeout rejects with the given error and leaves no timer', async () => {
    await expect(withTimeout(sleep(1000), 10, () => new TimeoutError('late'))).rejects.toBeInstanceOf(TimeoutError);
    await expect(withTimeout(Promise.resolve(7), 1000, () => new TimeoutError('late'))).resolves.toBe(7);
  });
});
