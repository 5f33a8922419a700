import { spawn, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { sleep } from '@gregor/common';

export interface ManagedProcessOptions {
  /** Shown in errors. */
  name: string;
  command: string;
  args: string[];
  env?: NodeJS.ProcessEnv;
  cwd?: string;
  /** stdout and stderr are appended here. */
  logFile: string;
  /** Holds the pid while the process runs, so another invocation can re-attach. */
  pidFile?: string;
  /** Own process group and no ties to this process: it keeps running after we exit. Default false. */
  detached?: boolean;
  /** How long stop() waits after SIGTERM before SIGKILL. Default 10000. */
  stopGraceMs?: number;
}

export interface AttachOptions {
  name: string;
  pidFile: string;
  logFile?: string;
  /** The process's command line must contain this (guards against a recycled pid). */
  cmdlineContains?: string;
  stopGraceMs?: number;
}

/** Every process started or attached here that has not been seen to exit. */
const live = new Set<ManagedProcess>();
let exitHookInstalled = false;

/** SIGKILLs every child still tracked (test teardown). Returns how many it killed. */
export async function killAllManagedProcesses(): Promise<number> {
  const all = [...live];
  await Promise.all(all.map((p) => p.kill()));
  return all.length;
}

export function trackedProcessCount(): number {
  return live.size;
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Attached children must not outlive us; detached ones are meant to.
  process.once('exit', () => {
    for (const p of live) if (!p.detached) p.signal('SIGKILL');
  });
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  // An exited child nobody reaped yet still answers signal 0.
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** A child process with a log file and pid file: start, stop (SIGTERM then SIGKILL), kill, pause, resume. */
export class ManagedProcess {
  readonly name: string;
  readonly detached: boolean;
  readonly logFile: string | undefined;
  readonly pidFile: string | undefined;
  #options: ManagedProcessOptions | undefined;
  #stopGraceMs: number;
  #child: ChildProcess | undefined;
  #pid: number | undefined;
  #exited = true;
  #exitWaiters: Array<() => void> = [];

  constructor(options: ManagedProcessOptions) {
    this.name = options.name;
    this.detached = options.detached ?? false;
    this.logFile = options.logFile;
    this.pidFile = options.pidFile;
    this.#options = options;
    this.#stopGraceMs = options.stopGraceMs ?? 10_000;
  }

  /** Re-attaches to a process started earlier (possibly by another invocation) from its pid file; null if it is not running. */
  static attach(options: AttachOptions): ManagedProcess | null {
    if (!existsSync(options.pidFile)) return null;
    const pid = Number.parseInt(readFileSync(options.pidFile, 'utf8').trim(), 10);
    if (!Number.isSafeInteger(pid) || pid <= 0 || !pidAlive(pid)) return null;
    if (options.cmdlineContains !== undefined) {
      let cmdline = '';
      try {
        cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ');
      } catch {
        return null;
      }
      if (!cmdline.includes(options.cmdlineContains)) return null;
    }
    const p = new ManagedProcess({
      name: options.name,
      command: '',
      args: [],
      logFile: options.logFile ?? '/dev/null',
      pidFile: options.pidFile,
      detached: true,
      stopGraceMs: options.stopGraceMs ?? 10_000,
    });
    p.#options = undefined;
    p.#pid = pid;
    p.#exited = false;
    live.add(p);
    return p;
  }

  get pid(): number | undefined {
    return this.#exited ? undefined : this.#pid;
  }

  /** False for a process attached from a pid file: it has no command line to start again. */
  get restartable(): boolean {
    return this.#options !== undefined;
  }

  isRunning(): boolean {
    if (this.#exited || this.#pid === undefined) return false;
    // Our own child reports its exit by event; until then a reaped-or-zombie pid already means gone.
    if (this.#child) return pidAlive(this.#pid);
    if (pidAlive(this.#pid)) return true;
    this.#onExit();
    return false;
  }

  /** Spawns the process; resolves once it is running (rejects if the command cannot be spawned). */
  async start(): Promise<void> {
    if (this.isRunning()) throw new Error(`${this.name} is already running (pid ${this.#pid})`);
    const options = this.#options;
    if (!options) throw new Error(`${this.name} was attached from a pid file and cannot be restarted from here`);
    mkdirSync(dirname(options.logFile), { recursive: true });
    const logFd = openSync(options.logFile, 'a');
    let child: ChildProcess;
    try {
      child = spawn(options.command, options.args, {
        cwd: options.cwd,
        env: options.env ?? process.env,
        stdio: ['ignore', logFd, logFd],
        detached: this.detached,
      });
    } finally {
      closeSync(logFd);
    }
    await new Promise<void>((resolve, reject) => {
      child.once('spawn', resolve);
      child.once('error', reject);
    });
    child.removeAllListeners('error');
    child.on('error', () => {}); // later signalling errors are handled by callers
    this.#child = child;
    this.#pid = child.pid!;
    this.#exited = false;
    child.once('exit', () => this.#onExit());
    if (this.detached) child.unref();
    if (this.pidFile) {
      mkdirSync(dirname(this.pidFile), { recursive: true });
      writeFileSync(this.pidFile, `${this.#pid}\n`);
    }
    live.add(this);
    installExitHook();
  }

  /** Sends a signal; false if the process is not running. */
  signal(signal: NodeJS.Signals): boolean {
    if (this.#exited || this.#pid === undefined) return false;
    try {
      process.kill(this.#pid, signal);
      return true;
    } catch {
      return false;
    }
  }

  /** SIGTERM, then SIGKILL if it has not exited within the grace period. */
  async stop(graceMs = this.#stopGraceMs): Promise<void> {
    if (!this.isRunning()) {
      await this.waitForExit(1000); // already dead: let the exit bookkeeping (pid file) finish
      return;
    }
    this.signal('SIGTERM');
    this.signal('SIGCONT'); // a paused process would never act on SIGTERM
    if (await this.waitForExit(graceMs)) return;
    await this.kill();
  }

  async kill(): Promise<void> {
    if (!this.isRunning()) {
      await this.waitForExit(1000);
      return;
    }
    this.signal('SIGKILL');
    if (!(await this.waitForExit(10_000))) throw new Error(`${this.name} (pid ${this.#pid}) survived SIGKILL`);
  }

  /**
   * SIGSTOP, returning once every thread is stopped: kill(2) returns before a thread running on another core
   * has stopped, and a request sent in that window would still be answered.
   */
  pause(): void {
    if (!this.signal('SIGSTOP')) throw new Error(`${this.name} is not running`);
    const deadline = Date.now() + 2000;
    while (!allThreadsStopped(this.#pid!) && Date.now() < deadline) Atomics.wait(PAUSE_WAIT, 0, 0, 1);
  }

  resume(): void {
    if (!this.signal('SIGCONT')) throw new Error(`${this.name} is not running`);
  }

  /** Resolves true once the process has exited, false if `timeoutMs` passed first. */
  async waitForExit(timeoutMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    if (this.#exited) return true;
    if (!this.#child) {
      // Not our child: no exit event, poll the pid.
      const deadline = Date.now() + timeoutMs;
      while (Date.now() < deadline) {
        if (!this.isRunning()) return true;
        await sleep(Math.min(50, Math.max(1, deadline - Date.now())));
      }
      return !this.isRunning();
    }
    return new Promise<boolean>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const onExit = (): void => {
        clearTimeout(timer);
        resolve(true);
      };
      this.#exitWaiters.push(onExit);
      if (Number.isFinite(timeoutMs)) {
        timer = setTimeout(() => {
          this.#exitWaiters = this.#exitWaiters.filter((w) => w !== onExit);
          resolve(false);
        }, timeoutMs);
      }
    });
  }

  /** The last lines of the log file (for error messages). */
  tailLog(lines = 20): string {
    if (!this.logFile || !existsSync(this.logFile)) return '';
    const text = readFileSync(this.logFile, 'utf8');
    return text.split('\n').slice(-lines - 1).join('\n').trim();
  }

  #onExit(): void {
    if (this.#exited) return;
    this.#exited = true;
    this.#child = undefined;
    live.delete(this);
    if (this.pidFile) {
      try {
        const recorded = Number.parseInt(readFileSync(this.pidFile, 'utf8').trim(), 10);
        if (recorded === this.#pid) rmSync(this.pidFile, { force: true });
      } catch {
        // already gone
      }
    }
    const waiters = this.#exitWaiters;
    this.#exitWaiters = [];
    for (const w of waiters) w();
  }
}

const PAUSE_WAIT = new Int32Array(new SharedArrayBuffer(4));

/** True when /proc shows every thread of `pid` stopped (state T), or when /proc cannot tell (not Linux, gone). */
function allThreadsStopped(pid: number): boolean {
  let tids: string[];
  try {
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return true;
  }
  return tids.every((tid) => {
    let stat: string;
    try {
      stat = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8');
    } catch {
      return true; // the thread exited
    }
    const state = stat[stat.lastIndexOf(')') + 2];
    return state === 'T' || state === 't' || state === 'Z' || state === 'X';
  });
}
