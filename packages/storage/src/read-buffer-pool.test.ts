import { describe, expect, it } from 'vitest';
import { ReadBufferPool } from './read-buffer-pool.js';

describe('ReadBufferPool', () => {
  it('hands a released buffer out again, found from any view of it', () => {
    const pool = new ReadBufferPool({ minBytes: 1024 });
    const a = pool.acquire(3000);
    expect(a.length).toBe(4096);
    pool.release(a.subarray(100, 200)); // a response chunk: a view of the buffer
    const b = pool.acquire(2500);
    expect(b).toBe(a);
    expect(pool.stats).toMatchObject({ acquired: 2, reused: 1, released: 1 });
  });

  it('never hands out a buffer that was not released, and ignores double and foreign releases', () => {
    const pool = new ReadBufferPool({ minBytes: 1024 });
    const a = pool.acquire(1024);
    const b = pool.acquire(1024);
    expect(b).not.toBe(a);
    pool.release(a);
    pool.release(a);
    pool.release(Buffer.alloc(1024));
    expect(pool.pooledBytes).toBe(1024);
    const c = pool.acquire(1024);
    const d = pool.acquire(1024);
    expect(c).toBe(a);
    expect(d).not.toBe(a);
    expect(d).not.toBe(b);
  });

  it('does not pool small reads and keeps at most maxPooledBytes free', () => {
    const pool = new ReadBufferPool({ minBytes: 1024, maxPooledBytes: 4096 });
    const small = pool.acquire(100);
    expect(small.length).toBe(100);
    pool.release(small);
    expect(pool.pooledBytes).toBe(0);
    const bufs = [pool.acquire(2048), pool.acquire(2048), pool.acquire(2048)];
    for (const b of bufs) pool.release(b);
    expect(pool.pooledBytes).toBe(4096);
  });
});
