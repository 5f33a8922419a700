// Preloaded into broker processes by the benchmarks (node --import): measures the process's event-loop delay and, on
// SIGUSR2, appends what it saw since the previous SIGUSR2 (p50, p99, max in ms) to $LOOP_MONITOR_FILE (or to
// $LOOP_MONITOR_DIR/event-loop-<pid>.jsonl), then starts over.
// With LOOP_MONITOR_INTERVAL_MS=<n> it also appends the same figures for every n ms to <that file>.series.jsonl, so a
// benchmark can see when in a window the loop was held (against the times of its own log lines).
// A ZooKeeper session is lost when the loop is blocked for a session timeout; this shows how close a broker came.
import { appendFileSync } from 'node:fs';
import { join } from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const dir = process.env.LOOP_MONITOR_DIR;
const file = process.env.LOOP_MONITOR_FILE ?? (dir ? join(dir, `event-loop-${process.pid}.jsonl`) : undefined);
const ms = (ns) => Math.round(ns / 1e4) / 100;
const line = (h) => `${JSON.stringify({ time: Date.now(), pid: process.pid, p50: ms(h.percentile(50)), p99: ms(h.percentile(99)), max: ms(h.max), samples: h.count })}\n`;
if (file) {
  const h = monitorEventLoopDelay({ resolution: 5 });
  h.enable();
  process.on('SIGUSR2', () => {
    appendFileSync(file, line(h));
    h.reset();
  });
  const interval = Number(process.env.LOOP_MONITOR_INTERVAL_MS ?? 0);
  if (interval > 0) {
    const s = monitorEventLoopDelay({ resolution: 5 });
    s.enable();
    // unref: the series never keeps a stopping broker alive.
    setInterval(() => {
      appendFileSync(`${file}.series.jsonl`, line(s));
      s.reset();
    }, interval).unref();
  }
}
