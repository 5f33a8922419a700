import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OffsetIndex } from './offset-index.js';
import { TimeIndex } from './time-index.js';
import { nodeIo } from './segment-io.js';
import { tempDir } from './test-batches.js';

let dir: { path: string; cleanup(): void };
beforeEach(() => {
  dir = tempDir();
});
afterEach(() => dir.cleanup());

describe('OffsetIndex', () => {
  it('finds the greatest entry at or below the target', () => {
    const index = new OffsetIndex(join(dir.path, 'a.index'), 100, 1024, nodeIo, true);
    index.append(105, 1000);
    index.append(120, 5000);
    index.append(130, 9000);
    expect(index.lookup(99)).toEqual({ offset: 100, position: 0 });
    expect(index.lookup(104)).toEqual({ offset: 100, position: 0 });
    expect(index.lookup(105)).toEqual({ offset: 105, position: 1000 });
    expect(index.lookup(129)).toEqual({ offset: 120, position: 5000 });
    expect(index.lookup(10_000)).toEqual({ offset: 130, position: 9000 });
    expect(statSync(index.path).size).toBe(24);
    index.close();
  });

  it('stores relative offsets, reloads, truncates by position and detects a bad file', () => {
    const path = join(dir.path, 'b.index');
    const index = new OffsetIndex(path, 1_000_000, 16, nodeIo, true);
    index.append(1_000_010, 100);
    index.append(1_000_020, 200);
    expect(index.isFull()).toBe(true);
    index.truncateToPosition(200);
    expect(index.entries).toBe(1);
    index.close();
    const reopened = new OffsetIndex(path, 1_000_000, 16, nodeIo, false);
    expect(reopened.load(500)).toBe(true);
    expect(reopened.lastEntry()).toEqual({ offset: 1_000_010, position: 100 });
    expect(reopened.load(50)).toBe(false); // position beyond the log
    reopened.close();
    writeFileSync(path, Buffer.alloc(5));
    const torn = new OffsetIndex(path, 0, 1024, nodeIo, false);
    expect(torn.load(500)).toBe(false);
    torn.close();
  });

  it('refuses out-of-order entries', () => {
    const index = new OffsetIndex(join(dir.path, 'c.index'), 0, 1024, nodeIo, true);
    index.append(10, 100);
    expect(() => index.append(10, 200)).toThrow(RangeError);
    expect(() => index.append(11, 100)).toThrow(RangeError);
    index.close();
  });
});

describe('TimeIndex', () => {
  it('keeps a strictly increasing running max and finds the last entry below a timestamp', () => {
    const index = new TimeIndex(join(dir.path, 'a.timeindex'), 50, 1024, nodeIo, true);
    index.maybeAppend(1000, 50);
    index.maybeAppend(1000, 60); // not above the last: skipped
    index.maybeAppend(2000, 70);
    index.maybeAppend(3000, 90);
    expect(index.entries).toBe(3);
    expect(index.lastEntryBefore(1000)).toBeNull();
    expect(index.lastEntryBefore(1001)).toEqual({ timestamp: 1000, offset: 50 });
    expect(index.lastEntryBefore(3000)).toEqual({ timestamp: 2000, offset: 70 });
    index.truncateTo(70);
    expect(index.lastEntry()).toEqual({ timestamp: 1000, offset: 50 });
    index.close();
    const reopened = new TimeIndex(index.path, 50, 1024, nodeIo, false);
    expect(reopened.load(60)).toBe(true);
    expect(reopened.load(50)).toBe(false); // entry not below the segment's next offset
    reopened.close();
  });
});
