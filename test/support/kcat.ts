// Test support: run kcat (librdkafka 2.0.2) against a broker. Every run's exit code is checked: a kcat that
// exits non-zero (delivery failed, broker unreachable, bad arguments) rejects with its stderr, so no check
// can pass on the partial output of a failed run. A test that expects a failure names the codes it allows.
import { spawn } from 'node:child_process';

export interface KcatResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: Buffer;
  stderr: string;
}

export interface KcatOptions {
  /** Exit codes that count as success. Default [0]. */
  allowCodes?: readonly number[];
  /** Signals that count as an expected end (reported as code null with `signal`). librdkafka 2.0.2 can crash
   *  in its own teardown after a failed SASL_SSL handshake; a test that checks only the error it printed may
   *  allow that. */
  allowSignals?: readonly NodeJS.Signals[];
}

export function kcat(args: string[], input?: Buffer | string, timeoutMs = 60_000, options: KcatOptions = {}): Promise<KcatResult> {
  const allowed = options.allowCodes ?? [0];
  return new Promise((resolve, reject) => {
    const child = spawn('kcat', args, { stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`kcat ${args.join(' ')} timed out after ${timeoutMs} ms; stderr: ${err.slice(-2000)}`));
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += d.toString()));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      const expectedSignal = code === null && signal !== null && (options.allowSignals ?? []).includes(signal);
      if (!expectedSignal && (code === null || !allowed.includes(code))) {
        reject(new Error(`kcat ${args.join(' ')} exited with ${code ?? signal} (allowed: ${allowed.join(', ')}); stderr: ${err.slice(-2000)}`));
        return;
      }
      resolve({ code, signal, stdout: Buffer.concat(out), stderr: err });
    });
    child.stdin.on('error', () => {});
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
  });
}
