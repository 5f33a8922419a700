import { describe, expect, it } from 'vitest';
import { MessageQueue } from './message-queue.js';

describe('MessageQueue', () => {
  it('keeps order, holds a producer back while full, and lets it go as items are taken', async () => {
    const q = new MessageQueue<number>(3);
    const signal = new AbortController().signal;
    let done = false;
    const pushed = q.pushMany([1, 2, 3, 4, 5], signal).then((ok) => ((done = true), ok));
    await new Promise((r) => setImmediate(r));
    expect(q.size).toBe(3);
    expect(done).toBe(false);
    expect(await q.take()).toBe(1);
    expect(await q.take()).toBe(2);
    expect(await pushed).toBe(true);
    expect([await q.take(), await q.take(), await q.take()]).toEqual([3, 4, 5]);
  });

  it('hands items straight to a waiting taker; an abort drops what is left', async () => {
    const q = new MessageQueue<string>(1);
    const waiting = q.take();
    const abort = new AbortController();
    const pushed = q.pushMany(['a', 'b', 'c'], abort.signal);
    expect(await waiting).toBe('a');
    abort.abort();
    expect(await pushed).toBe(false);
    expect(q.size).toBe(1);
    q.clear();
    expect(q.size).toBe(0);
    const taker = new AbortController();
    const t = q.take(taker.signal);
    taker.abort();
    await expect(t).rejects.toThrow('aborted');
  });
});
