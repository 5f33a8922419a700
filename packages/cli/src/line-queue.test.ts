import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineQueue } from './line-queue.js';

describe('LineQueue', () => {
  it('hands out what has arrived, strips CR, keeps a last line without newline', async () => {
    const input = new PassThrough();
    const q = new LineQueue(input);
    input.write('a\r\nb\nc');
    expect(await q.take(10, 1000)).toEqual(['a', 'b']);
    const pending = q.take(10, 1000);
    input.write('d\n\n');
    expect(await pending).toEqual(['cd', '']);
    input.end('tail');
    expect(await q.take(10, 1000)).toEqual(['tail']);
    expect(await q.take(10, 1000)).toBeNull();
  });

  it('caps batches by lines and bytes but always gives at least one line', async () => {
    const input = new PassThrough();
    const q = new LineQueue(input);
    input.end(`${['1', '2', '3', '4', '5'].join('\n')}\n${'x'.repeat(50)}\n`);
    await new Promise((r) => setImmediate(r));
    expect(await q.take(2, 1000)).toEqual(['1', '2']);
    expect(await q.take(10, 2)).toEqual(['3', '4']);
    expect(await q.take(10, 2)).toEqual(['5']);
    expect(await q.take(10, 2)).toEqual(['x'.repeat(50)]);
    expect(await q.take(10, 2)).toBeNull();
  });

  it('decodes multi-byte characters split across chunks', async () => {
    const input = new PassThrough();
    const q = new LineQueue(input);
    const bytes = Buffer.from('é€\n');
    input.write(bytes.subarray(0, 1));
    input.write(bytes.subarray(1, 4));
    input.end(bytes.subarray(4));
    expect(await q.take(10, 100)).toEqual(['é€']);
  });

  it('pauses the stream while too many lines wait and resumes once drained', async () => {
    const input = new PassThrough();
    const q = new LineQueue(input, 4);
    input.write('1\n2\n3\n4\n5\n');
    await new Promise((r) => setImmediate(r));
    expect(input.isPaused()).toBe(true);
    expect(await q.take(4, 100)).toEqual(['1', '2', '3', '4']);
    expect(input.isPaused()).toBe(false);
    input.end();
    expect(await q.take(10, 100)).toEqual(['5']);
    expect(await q.take(10, 100)).toBeNull();
  });
});
