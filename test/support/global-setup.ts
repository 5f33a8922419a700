// vitest globalSetup (runs in vitest's main process): marks every process the tests start (see
// test-children.ts) and, at the end of the run, fails it if any of them is still alive. Survivors are
// listed and killed so they cannot disturb the next run; vitest only logs errors thrown by a global
// teardown, so the failure is an exit code set here.
import { randomUUID } from 'node:crypto';
import { describeProcesses, killProcesses, markedProcesses, RUN_MARKER } from './test-children.js';

export function setup(): () => Promise<void> {
  const runId = process.env[RUN_MARKER] ?? `${process.pid}-${randomUUID().slice(0, 8)}`;
  // Workers are forked after this with a copy of this environment; everything they spawn inherits it.
  process.env[RUN_MARKER] = runId;
  return async () => {
    // Children just signalled by the last test may still be exiting.
    let survivors = markedProcesses(runId);
    for (let i = 0; i < 20 && survivors.length > 0; i++) {
      await new Promise((r) => setTimeout(r, 250));
      survivors = markedProcesses(runId);
    }
    if (survivors.length === 0) return;
    console.error(`\nLEAKED PROCESSES: ${survivors.length} process(es) started by the tests outlived them (now killed):\n${describeProcesses(survivors)}\n`);
    killProcesses(survivors);
    process.exitCode = 1;
  };
}
