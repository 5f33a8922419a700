import { afterEach, describe, expect, it, vi } from 'vitest';
import { formatBytes, Progress } from './progress.js';

afterEach(() => vi.useRealTimers());

function stream(isTTY: boolean) {
  const writes: string[] = [];
  return { writes, isTTY, columns: 40, write: (s: string) => writes.push(s) > 0 };
}

describe('Progress', () => {
  it('redraws one status line on a terminal, keeps logged lines, clears itself when done', () => {
    vi.useFakeTimers();
    const s = stream(true);
    let n = 0;
    const p = new Progress(s).start(() => `step ${++n}`, 100);
    vi.advanceTimersByTime(250);
    p.log('started zk-1');
    p.done();
    vi.advanceTimersByTime(1000); // no redraw after done: the timer is gone
    expect(s.writes).toEqual(['\r\x1b[2Kstep 1', '\r\x1b[2Kstep 2', '\r\x1b[2Kstep 3', '\r\x1b[2K', 'started zk-1\n', '\r\x1b[2Kstep 4', '\r\x1b[2K']);
  });

  it('prints nothing but logged lines when stderr is not a terminal', () => {
    vi.useFakeTimers();
    const s = stream(false);
    const p = new Progress(s).start(() => 'status', 100);
    vi.advanceTimersByTime(500);
    p.log('a line');
    p.done();
    expect(s.writes).toEqual(['a line\n']);
  });

  it('cuts a status line to the terminal width', () => {
    const s = stream(true);
    new Progress(s).start(() => 'x'.repeat(100)).done();
    expect(s.writes[0]).toBe(`\r\x1b[2K${'x'.repeat(38)}…`);
    expect([formatBytes(10), formatBytes(2048), formatBytes(3 * 1024 * 1024)]).toEqual(['10 B', '2.0 KB', '3.0 MB']);
  });
});
