import { describe, expect, it } from 'vitest';
import { ChunkQueue } from './chunk-queue.js';
import { SHUTDOWN_COMMAND, type FetchedDataChunk } from './fetched-data-chunk.js';

const chunk = (n: number) => ({ records: Buffer.alloc(n), info: {} as never, fetchOffset: 0 }) as FetchedDataChunk;

describe('ChunkQueue', () => {
  it('reports fullness, counts bytes and tells listeners when room appears', async () => {
    const q = new ChunkQueue(2);
    let spaces = 0;
    q.onSpace(() => spaces++);
    expect(q.put(chunk(10))).toBe(true);
    expect(q.put(chunk(20))).toBe(false);
    expect(q.bytes).toBe(30);
    expect((await q.take(-1)) as FetchedDataChunk).toMatchObject({ records: { length: 10 } });
    expect(spaces).toBe(1);
    expect(q.bytes).toBe(20);
    q.clear();
    expect(q.size).toBe(0);
    expect(q.bytes).toBe(0);
  });

  it('take waits for a put, or times out with undefined', async () => {
    const q = new ChunkQueue(1);
    expect(await q.take(20)).toBeUndefined();
    const waiting = q.take(-1);
    q.put(SHUTDOWN_COMMAND);
    expect(await waiting).toBe(SHUTDOWN_COMMAND);
  });
});
