// Test support: Go Sarama (Debian's golang-github-shopify-sarama-dev) as a real client. The program in
// test/clients/sarama is built once per content hash into a cache folder, offline, in GOPATH mode
// against Debian's /usr/share/gocode.
import { spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const SOURCE_DIR = new URL('../clients/sarama/', import.meta.url).pathname;

/** Builds the Sarama client if needed and returns the path of the binary. */
export function saramaBinary(): string {
  const source = readFileSync(join(SOURCE_DIR, 'main.go'));
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16);
  const dir = join(tmpdir(), 'gregor-sarama');
  const bin = join(dir, `sarama-client-${hash}`);
  if (existsSync(bin)) return bin;
  mkdirSync(dir, { recursive: true });
  const build = spawnSync('go', ['build', '-o', bin, '.'], {
    cwd: SOURCE_DIR,
    env: { ...process.env, GO111MODULE: 'off', GOPATH: '/usr/share/gocode', GOCACHE: join(dir, 'gocache') },
    encoding: 'utf8',
    timeout: 600_000,
  });
  if (build.status !== 0) throw new Error(`building the Sarama client failed (is golang-go and golang-github-shopify-sarama-dev installed?):\n${build.stderr}`);
  return bin;
}

export interface SaramaResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the Sarama client: mode produce|consume|group with flags (-brokers, -topic, -n, -version, ...). */
export function sarama(mode: 'produce' | 'consume' | 'group', flags: Record<string, string | number>, timeoutMs = 120_000): Promise<SaramaResult> {
  const bin = saramaBinary();
  const args = [...Object.entries(flags).map(([k, v]) => `-${k}=${v}`), mode];
  return new Promise((resolve, reject) => {
    const child = spawn(bin, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`sarama ${args.join(' ')} timed out; stderr: ${stderr.slice(-2000)}`));
    }, timeoutMs);
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}
