// Test support: a broker as a real OS process (`gregor broker`), so tests can SIGKILL, SIGSTOP and restart it.
import { mkdirSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { Connection } from '@gregor/client';
import { ManagedProcess } from '@gregor/launcher';
import { Metadata } from '@gregor/protocol';

const CLI = join(import.meta.dirname, '../../packages/cli/dist/main.js');

export interface BrokerProcessOptions {
  brokerId: number;
  port: number;
  dir: string;
  zookeeperConnect: string;
  props?: Record<string, string>;
}

export class BrokerProcess {
  readonly opts: BrokerProcessOptions;
  readonly logDir: string;
  readonly logFile: string;
  #proc: ManagedProcess | null = null;

  constructor(opts: BrokerProcessOptions) {
    this.opts = opts;
    mkdirSync(opts.dir, { recursive: true });
    this.logDir = join(opts.dir, 'data');
    this.logFile = join(opts.dir, 'broker.log');
    const props = {
      'broker.id': String(opts.brokerId),
      listeners: `PLAINTEXT://127.0.0.1:${opts.port}`,
      'log.dirs': this.logDir,
      'zookeeper.connect': opts.zookeeperConnect,
      'zookeeper.session.timeout.ms': '6000',
      'controlled.shutdown.retry.backoff.ms': '200',
      'http.port': '-1',
      ...opts.props,
    };
    writeFileSync(join(opts.dir, 'server.properties'), Object.entries(props).map(([k, v]) => `${k}=${v}`).join('\n') + '\n');
  }

  get bootstrap(): string {
    return `127.0.0.1:${this.opts.port}`;
  }

  get pid(): number | undefined {
    return this.#proc?.pid;
  }

  /** Starts the process and waits until it answers Metadata (served only once it knows its role). */
  async start(): Promise<void> {
    this.#proc = new ManagedProcess({
      name: `broker-${this.opts.brokerId}`,
      command: process.execPath,
      args: [CLI, 'broker', '--config', join(this.opts.dir, 'server.properties')],
      env: { ...process.env, LOG_LEVEL: process.env.TEST_LOG ?? 'info' },
      logFile: this.logFile,
      stopGraceMs: 20_000,
    });
    await this.#proc.start();
    await waitForPort(this.opts.port, 30_000, () => this.#proc?.isRunning() ?? false);
    await waitForMetadata(this.opts.port, 30_000);
  }

  /** SIGTERM: controlled shutdown, then exit. */
  async stop(): Promise<void> {
    await this.#proc?.stop();
  }

  async kill(): Promise<void> {
    await this.#proc?.kill();
  }

  pause(): void {
    this.#proc?.pause();
  }

  resume(): void {
    this.#proc?.resume();
  }

  isRunning(): boolean {
    return this.#proc?.isRunning() ?? false;
  }

  tailLog(): string {
    return this.#proc?.tailLog() ?? '';
  }
}

export function waitForPort(port: number, timeoutMs: number, alive: () => boolean = () => true): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const s = net.connect({ host: '127.0.0.1', port }, () => {
        s.destroy();
        resolve();
      });
      s.on('error', () => {
        s.destroy();
        if (!alive()) reject(new Error(`process died before port ${port} opened`));
        else if (Date.now() > deadline) reject(new Error(`port ${port} not open after ${timeoutMs} ms`));
        else setTimeout(attempt, 100);
      });
    };
    attempt();
  });
}

/** Resolves once the broker answers a Metadata request (it holds client requests until ready). */
export async function waitForMetadata(port: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const c = new Connection({ host: '127.0.0.1', port, requestTimeoutMs: 2000, connectTimeoutMs: 2000 });
    try {
      await c.connect();
      await c.send(Metadata, { topics: [] });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`broker on port ${port} not ready: ${(err as Error).message}`);
    } finally {
      await c.close();
    }
  }
}
