import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CorruptDataError } from '@gregor/common';
import { OffsetCheckpointFile, readCheckpointFile, writeCheckpointFileAsync } from './checkpoint-file.js';
import { tempDir } from './test-batches.js';

let dir: { path: string; cleanup(): void };
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.cleanup());

describe('OffsetCheckpointFile', () => {
  it("round-trips in Kafka's format", () => {
    const file = new OffsetCheckpointFile(join(dir.path, 'replication-offset-checkpoint'));
    expect(file.read().size).toBe(0);
    file.write([
      { topic: 'orders', partition: 0, offset: 15230 },
      { topic: 'orders-eu', partition: 1, offset: 15177 },
    ]);
    expect(readFileSync(file.path, 'utf8')).toBe('0\n2\norders 0 15230\norders-eu 1 15177\n');
    expect(existsSync(`${file.path}.tmp`)).toBe(false);
    const read = file.read();
    expect(read.get('orders-eu-1')).toEqual({ topic: 'orders-eu', partition: 1, offset: 15177 });
    file.write([]);
    expect(file.read().size).toBe(0);
  });

  it('rejects malformed files', () => {
    const file = new OffsetCheckpointFile(join(dir.path, 'x'));
    writeFileSync(file.path, '1\n0\n');
    expect(() => file.read()).toThrow(CorruptDataError);
    writeFileSync(file.path, '0\n2\norders 0 1\n');
    expect(() => file.read()).toThrow(CorruptDataError);
    writeFileSync(file.path, '0\n1\norders zero 1\n');
    expect(() => file.read()).toThrow(CorruptDataError);
  });
});

describe('asynchronous checkpoint writes', () => {
  it('chain writes of one path so the last snapshot wins, in the same format', async () => {
    const path = join(dir.path, 'replication-offset-checkpoint');
    const writes: Promise<void>[] = [];
    for (let i = 0; i < 20; i++) writes.push(writeCheckpointFileAsync(path, [`t 0 ${i}`, `t 1 ${i * 2}`]));
    await Promise.all(writes);
    expect(readCheckpointFile(path)).toEqual(['t 0 19', 't 1 38']);
    expect(readFileSync(path, 'utf8')).toBe('0\n2\nt 0 19\nt 1 38\n');
  });
});
