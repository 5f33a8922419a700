import { mkdtempSync, readFileSync, existsSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { ManagedProcess, killAllManagedProcesses, trackedProcessCount } from './managed-process.js';

const dir = mkdtempSync(join(tmpdir(), 'gregor-mp-'));
afterEach(async () => {
  await killAllManagedProcesses();
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sleeper(name: string, script = 'setInterval(() => {}, 1000); console.log("up")', detached = false): ManagedProcess {
  return new ManagedProcess({
    name,
    command: process.execPath,
    args: ['-e', script],
    logFile: join(dir, `${name}.log`),
    pidFile: join(dir, `${name}.pid`),
    detached,
    stopGraceMs: 500,
  });
}

async function waitForLog(p: ManagedProcess, text: string): Promise<void> {
  for (let i = 0; i < 100 && !p.tailLog().includes(text); i++) await new Promise((r) => setTimeout(r, 50));
}

describe('ManagedProcess', () => {
  it('starts, logs, writes a pid file, stops with SIGTERM and removes the pid file', async () => {
    const p = sleeper('a');
    await p.start();
    expect(p.isRunning()).toBe(true);
    expect(Number(readFileSync(p.pidFile!, 'utf8'))).toBe(p.pid);
    await waitForLog(p, 'up');
    expect(p.tailLog()).toContain('up');
    await p.stop();
    expect(p.isRunning()).toBe(false);
    expect(existsSync(p.pidFile!)).toBe(false);
    expect(trackedProcessCount()).toBe(0);
  });

  it('escalates to SIGKILL when SIGTERM is ignored, and stop() works on a paused process', async () => {
    const p = sleeper('b', 'process.on("SIGTERM", () => {}); setInterval(() => {}, 1000); console.log("up")');
    await p.start();
    await waitForLog(p, 'up'); // the handler is installed only once the script runs
    p.pause();
    const t0 = Date.now();
    await p.stop(300);
    expect(p.isRunning()).toBe(false);
    expect(Date.now() - t0).toBeGreaterThanOrEqual(250);
  });

  it('re-attaches to a detached process from its pid file and kills it', async () => {
    const p = sleeper('c', 'setInterval(() => {}, 1000) // marker-xyz', true);
    await p.start();
    expect(ManagedProcess.attach({ name: 'c', pidFile: p.pidFile!, cmdlineContains: 'no-such-marker' })).toBeNull();
    const again = ManagedProcess.attach({ name: 'c', pidFile: p.pidFile!, cmdlineContains: 'marker-xyz' });
    expect(again?.pid).toBe(p.pid);
    expect(again?.restartable).toBe(false);
    await again!.kill();
    expect(again!.isRunning()).toBe(false);
    expect(await p.waitForExit(2000)).toBe(true);
    expect(ManagedProcess.attach({ name: 'c', pidFile: p.pidFile! })).toBeNull();
  });

  it('rejects when the command cannot be spawned', async () => {
    const p = new ManagedProcess({ name: 'bad', command: join(dir, 'missing-binary'), args: [], logFile: join(dir, 'bad.log') });
    await expect(p.start()).rejects.toThrow(/ENOENT/);
    expect(p.isRunning()).toBe(false);
  });
});
