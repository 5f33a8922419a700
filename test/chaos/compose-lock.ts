// One compose cluster at a time on this machine: the container tests of different files (and worktrees)
// would otherwise run two 6-container clusters at once on 2 cores. A lock file holds the owner's pid; a
// lock whose owner died is taken over.
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const LOCK = join(tmpdir(), 'gregor-compose-cluster.lock');

function ownerAlive(): boolean {
  let pid: number;
  try {
    pid = Number.parseInt(readFileSync(LOCK, 'utf8'), 10);
  } catch {
    return false;
  }
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits (bounded) until this process holds the lock. */
export async function acquireComposeLock(timeoutMs = 20 * 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const fd = openSync(LOCK, 'wx');
      writeSync(fd, String(process.pid));
      closeSync(fd);
      return;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    if (!ownerAlive()) {
      rmSync(LOCK, { force: true });
      continue;
    }
    if (Date.now() > deadline) throw new Error(`another compose cluster held ${LOCK} for ${timeoutMs} ms (pid ${readFileSync(LOCK, 'utf8')})`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

export function releaseComposeLock(): void {
  try {
    if (Number.parseInt(readFileSync(LOCK, 'utf8'), 10) === process.pid) rmSync(LOCK, { force: true });
  } catch {
    // not held
  }
}
