import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { SLOWEST } from './slowest-first.js';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe("the sequencer's list of the longest files", () => {
  it('names test files that exist, each once (a renamed file would silently lose its early start)', () => {
    expect(SLOWEST.filter((f) => !existsSync(`${root}${f}`))).toEqual([]);
    expect(SLOWEST.every((f) => f.endsWith('.test.ts'))).toBe(true);
    expect(new Set(SLOWEST).size).toBe(SLOWEST.length);
  });
});
