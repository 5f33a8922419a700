// Test support: a broker as a real OS process (`gregor broker`), so tests can SIGKILL, SIGSTOP and restart it.
// The process itself is the launcher's BrokerProcess; this adds the test defaults and waits, after the
// port opens, until the broker answers Metadata (it holds client requests until it knows its role).
import { join } from 'node:path';
import { Connection } from '@gregor/client';
import { BrokerProcess as LauncherBrokerProcess } from '@gregor/launcher';
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
  readonly #process: LauncherBrokerProcess;

  constructor(opts: BrokerProcessOptions) {
    this.opts = opts;
    const props = {
      'broker.id': String(opts.brokerId),
      listeners: `PLAINTEXT://127.0.0.1:${opts.port}`,
      'log.dirs': join(opts.dir, 'data'),
      'zookeeper.connect': opts.zookeeperConnect,
      'zookeeper.session.timeout.ms': '6000',
      'controlled.shutdown.retry.backoff.ms': '200',
      'http.port': '-1',
      ...opts.props,
    };
    this.#process = new LauncherBrokerProcess({
      id: opts.brokerId,
      dir: opts.dir,
      host: '127.0.0.1',
      port: opts.port,
      httpPort: Number(props['http.port']),
      properties: new Map(Object.entries(props)),
      gregorCommand: [process.execPath, CLI],
      stopGraceMs: 20_000,
      readyTimeoutMs: 60_000, // generous: the test machine is shared and often loaded
    });
  }

  get bootstrap(): string {
    return this.#process.bootstrapServer;
  }

  /** The OS process id while it runs. */
  get pid(): number | undefined {
    return this.#process.pid;
  }

  get logDir(): string {
    return this.#process.dataDir;
  }

  get logFile(): string {
    return this.#process.logFile;
  }

  /** Starts the process and waits until it answers Metadata. */
  async start(): Promise<void> {
    await this.#process.start();
    await this.#process.waitReady();
    await waitForMetadata(this.opts.port, 60_000);
  }

  /** SIGTERM: controlled shutdown, then exit. */
  stop(): Promise<void> {
    return this.#process.stop();
  }

  kill(): Promise<void> {
    return this.#process.kill();
  }

  pause(): void {
    this.#process.pause();
  }

  resume(): void {
    this.#process.resume();
  }

  isRunning(): boolean {
    return this.#process.isRunning();
  }

  tailLog(): string {
    return this.#process.tailLog();
  }
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
