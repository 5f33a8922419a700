// Preloaded into broker processes by the benchmarks (node --import): measures the process's event-loop delay and, on
// SIGUSR2, appends what it saw since the previous SIGUSR2 (p50, p99, max in ms) to $LOOP_MONITOR_FILE (or to
// $LOOP_MONITOR_DIR/event-loop-<pid>.jsonl), then starts over.
// A ZooKeeper session is lost when the loop is blocked for a session timeout; this shows how close a broker came.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const dir = process.env.LOOP_MONITOR_DIR;
const file = process.env.LOOP_MONITOR_FILE ?? (dir ? join(dir, `event-loop-${process.pid}.jsonl`) : undefined);
if (file) {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  process.on('SIGUSR2', () => {
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    appendFileSync(file, `${JSON.stringify({ time: Date.now(), pid: process.pid, p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), samples: h.count })}\n`);
    h.reset();
  });
}
