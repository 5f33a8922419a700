// Test support: runs test/support/confluent-producer.py (librdkafka via python3-confluent-kafka) and collects what
// it acknowledged, from its delivery reports.
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';

const SCRIPT = join(import.meta.dirname, 'confluent-producer.py');

export interface Delivery {
  value: string;
  partition: number;
  offset: number;
}

export interface ConfluentRun {
  child: ChildProcess;
  /** Records acknowledged so far (delivery report without error). */
  acked: Delivery[];
  failed: { value: string; error: string }[];
  /** Resolves with the exit code once the process ends (after its final flush). */
  done: Promise<{ code: number | null; stderr: string }>;
  /** SIGTERM: no new values; what was produced is flushed, then the process exits. */
  stop(): void;
}

/** Starts an idempotent producer of `count` values `prefix-i`, `ratePerSec` at most (0 = as fast as it can). */
export function runConfluentProducer(bootstrap: string, topic: string, count: number, prefix: string, ratePerSec = 0, config: Record<string, unknown> = {}, timeoutMs = 300_000): ConfluentRun {
  const child = spawn('/usr/bin/python3', [SCRIPT, bootstrap, topic, String(count), prefix, String(ratePerSec), JSON.stringify(config)], { stdio: ['ignore', 'pipe', 'pipe'] });
  const run: ConfluentRun = { child, acked: [], failed: [], done: Promise.resolve({ code: null, stderr: '' }), stop: () => child.kill('SIGTERM') };
  let pending = '';
  let stderr = '';
  child.stdout!.on('data', (d: Buffer) => {
    pending += d.toString();
    let nl: number;
    while ((nl = pending.indexOf('\n')) >= 0) {
      const line = pending.slice(0, nl);
      pending = pending.slice(nl + 1);
      if (!line.trim()) continue;
      const r = JSON.parse(line) as { value?: string; partition?: number; offset?: number; error?: string; done?: boolean };
      if (r.done) continue;
      if (r.error !== undefined) run.failed.push({ value: r.value!, error: r.error });
      else run.acked.push({ value: r.value!, partition: r.partition!, offset: r.offset! });
    }
  });
  child.stderr!.on('data', (d: Buffer) => (stderr = (stderr + d.toString()).slice(-20_000)));
  run.done = new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`confluent producer timed out after ${timeoutMs} ms; stderr: ${stderr.slice(-2000)}`));
    }, timeoutMs);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
  return run;
}
