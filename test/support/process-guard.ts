// vitest setupFiles entry: after each test file, no process it started may still run. It checks the
// launcher's tracked processes (brokers, ZooKeeper nodes) and this worker's own marked children (kcat,
// client programs...). Survivors are killed and the file fails, naming them.
import { afterAll } from 'vitest';
import { killAllManagedProcesses, trackedProcessCount } from '@gregor/launcher';
import { describeProcesses, killProcesses, markedProcesses, RUN_MARKER } from './test-children.js';

afterAll(async () => {
  const runId = process.env[RUN_MARKER];
  const children = () => (runId ? markedProcesses(runId).filter((p) => p.ppid === process.pid) : []);
  let tracked = trackedProcessCount();
  let own = children();
  // A child signalled in the file's last afterAll may still be exiting.
  for (let i = 0; i < 20 && (tracked > 0 || own.length > 0); i++) {
    await new Promise((r) => setTimeout(r, 250));
    tracked = trackedProcessCount();
    own = children();
  }
  if (tracked === 0 && own.length === 0) return;
  await killAllManagedProcesses().catch(() => 0);
  killProcesses(own);
  throw new Error(
    `this test file left processes running (now killed): ${tracked} tracked by @gregor/launcher` +
      (own.length > 0 ? `; children of this worker:\n${describeProcesses(own)}` : ''),
  );
}, 30_000);
