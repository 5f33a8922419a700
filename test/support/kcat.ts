// Test support: run kcat (librdkafka 2.0.2) against a broker.
import { spawn } from 'node:child_process';

export interface KcatResult {
  code: number | null;
  stdout: Buffer;
  stderr: string;
}

export function kcat(args: string[], input?: Buffer | string, timeoutMs = 60_000): Promise<KcatResult> {
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
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout: Buffer.concat(out), stderr: err });
    });
    child.stdin.on('error', () => {});
    if (input !== undefined) child.stdin.end(input);
    else child.stdin.end();
  });
}
