// Test support: one `kcat -G` consumer group member as a process, with what it printed and was assigned.
import { spawn, type ChildProcess } from 'node:child_process';

export interface ConsumedLine {
  partition: number;
  offset: number;
  value: string;
}

/** A kcat (librdkafka 2.0.2) balanced consumer; `assigned` follows its "rebalanced ... assigned:" lines. */
export class KcatMember {
  readonly lines: ConsumedLine[] = [];
  /** The latest assignment (partitions of the topic), null after a revoke. */
  assigned: number[] | null = null;
  assignments = 0;
  stderr = '';
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcess;

  constructor(bootstrap: string, group: string, topic: string, extra: string[] = []) {
    this.#child = spawn(
      'kcat',
      [
        '-b', bootstrap, '-G', group, topic, '-f', '%p %o %s\\n', '-u',
        '-X', 'auto.offset.reset=earliest', '-X', 'session.timeout.ms=6000', '-X', 'heartbeat.interval.ms=500', '-X', 'auto.commit.interval.ms=500',
        ...extra,
      ],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let out = '';
    this.#child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      let i;
      while ((i = out.indexOf('\n')) >= 0) {
        const line = out.slice(0, i);
        out = out.slice(i + 1);
        const [p, o, ...v] = line.split(' ');
        this.lines.push({ partition: Number(p), offset: Number(o), value: v.join(' ') });
      }
    });
    let err = '';
    this.#child.stderr!.on('data', (d: Buffer) => {
      this.stderr += d.toString();
      err += d.toString();
      let i;
      while ((i = err.indexOf('\n')) >= 0) {
        this.#onStderr(err.slice(0, i));
        err = err.slice(i + 1);
      }
    });
    this.exited = new Promise((resolve) => this.#child.on('close', (code) => resolve(code)));
  }

  #onStderr(line: string): void {
    // "% Group g rebalanced (memberid m): assigned: t [0], t [3]" / "...: revoked: ..."
    const m = /rebalanced .*: (assigned|revoked): (.*)$/.exec(line);
    if (!m) return;
    if (m[1] === 'revoked') {
      this.assigned = null;
      return;
    }
    this.assigned = [...m[2]!.matchAll(/\[(\d+)\]/g)].map((x) => Number(x[1])).sort((a, b) => a - b);
    this.assignments++;
  }

  /** SIGTERM: kcat closes the consumer (final commit, LeaveGroup). */
  stop(): Promise<number | null> {
    this.#child.kill('SIGTERM');
    return this.exited;
  }

  kill(): Promise<number | null> {
    this.#child.kill('SIGKILL');
    return this.exited;
  }
}
