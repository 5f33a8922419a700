// Test support: the real, compiled `gregor` CLI as a child process.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../../../', import.meta.url));
export const cliMain = join(root, 'packages/cli/dist/main.js');

/** Builds the CLI when dist/ is missing (a fresh checkout). */
export function ensureBuilt(): void {
  if (!existsSync(cliMain)) execFileSync('npx', ['tsc', '-b'], { cwd: root, stdio: 'inherit', timeout: 240_000 });
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function gregor(args: string[], options: { input?: string; timeoutMs?: number; cwd?: string } = {}): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliMain, ...args], { cwd: options.cwd, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, LOG_FORMAT: 'json' } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`gregor ${args.join(' ')} did not finish in ${options.timeoutMs ?? 60_000} ms\nstdout: ${stdout}\nstderr: ${stderr}`));
    }, options.timeoutMs ?? 60_000);
    child.once('error', reject);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(options.input ?? '');
  });
}

/** A run that must succeed; its output otherwise goes into the error. */
export async function ok(args: string[], options?: { input?: string; timeoutMs?: number; cwd?: string }): Promise<Run> {
  const run = await gregor(args, options);
  if (run.code !== 0) throw new Error(`gregor ${args.join(' ')} exited with ${run.code}\nstdout: ${run.stdout}\nstderr: ${run.stderr}`);
  return run;
}

/** A long-running gregor (a group member): what it printed so far, and a way to stop it. */
export class GregorProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  readonly #child: ChildProcess;

  constructor(args: string[]) {
    this.#child = spawn(process.execPath, [cliMain, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_FORMAT: 'json' } });
    this.#child.stdout!.on('data', (d: Buffer) => (this.stdout += d.toString()));
    this.#child.stderr!.on('data', (d: Buffer) => (this.stderr += d.toString()));
    this.exited = new Promise((resolve) => this.#child.once('exit', (code) => resolve(code)));
  }

  get lines(): string[] {
    return this.stdout.split('\n').filter((l) => l !== '');
  }

  stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    if (this.#child.exitCode === null && this.#child.signalCode === null) this.#child.kill(signal);
    return this.exited;
  }
}

/** The rows of a kafka-consumer-groups style table whose first column is `group`, split on runs of spaces. */
export function tableRows(text: string, group: string): string[][] {
  return text
    .split('\n')
    .filter((l) => l.startsWith(`${group} `))
    .map((l) => l.trim().split(/\s+/));
}
