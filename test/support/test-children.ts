// Test support: finds the processes a test run started, by a marker in their environment. The global setup
// sets GREGOR_TEST_RUN before any worker starts, so every process spawned by a test (brokers, ZooKeeper,
// kcat, Go and Python clients, `gregor cluster up` daemons) inherits it, detached or not, even after its
// parent died. Only Linux /proc is read; elsewhere the scan finds nothing.
import { readdirSync, readFileSync } from 'node:fs';

export const RUN_MARKER = 'GREGOR_TEST_RUN';

export interface MarkedProcess {
  pid: number;
  ppid: number;
  cmdline: string;
}

function readStat(pid: number): { ppid: number; state: string } | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return { state: rest[0]!, ppid: Number(rest[1]) };
  } catch {
    return null;
  }
}

/**
 * Live processes (not zombies) whose environment holds `GREGOR_TEST_RUN=<runId>`, except vitest's own
 * processes (the main process and its workers) and this process.
 */
export function markedProcesses(runId: string): MarkedProcess[] {
  const needle = Buffer.from(`${RUN_MARKER}=${runId}\0`);
  const found: MarkedProcess[] = [];
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  for (const d of pids) {
    const pid = Number(d);
    if (pid === process.pid) continue;
    let environ: Buffer;
    let cmdline: string;
    try {
      environ = readFileSync(`/proc/${pid}/environ`);
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    } catch {
      continue; // gone, or not ours to read
    }
    if (!environ.includes(needle)) continue;
    if (/\bvitest\b/.test(cmdline)) continue; // the runner and its workers
    const stat = readStat(pid);
    if (!stat || stat.state === 'Z' || stat.state === 'X') continue;
    found.push({ pid, ppid: stat.ppid, cmdline: cmdline.slice(0, 300) });
  }
  return found;
}

/** SIGKILLs the processes (SIGCONT first: a stopped process must not linger). */
export function killProcesses(list: readonly MarkedProcess[]): void {
  for (const p of list) {
    for (const signal of ['SIGCONT', 'SIGKILL'] as const) {
      try {
        process.kill(p.pid, signal);
      } catch {
        // already gone
      }
    }
  }
}

export function describeProcesses(list: readonly MarkedProcess[]): string {
  return list.map((p) => `  pid ${p.pid} (parent ${p.ppid}): ${p.cmdline}`).join('\n');
}
