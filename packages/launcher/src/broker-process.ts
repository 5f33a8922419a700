import { mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sleep, TimeoutError } from '@gregor/common';
import { httpHealthy } from './http-health.js';
import { ManagedProcess } from './managed-process.js';
import { portOpen } from './port-open.js';
import { renderProperties } from './server-properties.js';

export interface BrokerProcessConfig {
  id: number;
  /** Holds server.properties, data/ (log.dirs), broker.log and broker.pid. */
  dir: string;
  host: string;
  port: number;
  /** -1 when the HTTP admin server is disabled. */
  httpPort: number;
  /** The complete server.properties (see localBrokerProperties). */
  properties: ReadonlyMap<string, string>;
  /** Program and leading arguments that run `gregor` (e.g. [node, .../cli/dist/main.js]); `broker --config <file>` is appended. */
  gregorCommand: readonly string[];
  /** Keep running after this process exits. Default false. */
  detached?: boolean;
  /** SIGTERM grace before SIGKILL (controlled shutdown happens in it). Default 30000. */
  stopGraceMs?: number;
  /** Default wait of waitReady(). Default 60000. */
  readyTimeoutMs?: number;
}

/** One gregor broker run as a separate `gregor broker --config ...` process. */
export class BrokerProcess {
  readonly id: number;
  readonly dir: string;
  readonly host: string;
  readonly port: number;
  readonly httpPort: number;
  readonly #config: BrokerProcessConfig;
  #process: ManagedProcess;

  constructor(config: BrokerProcessConfig) {
    this.#config = { ...config, dir: resolve(config.dir) };
    this.id = config.id;
    this.dir = this.#config.dir;
    this.host = config.host;
    this.port = config.port;
    this.httpPort = config.httpPort;
    if (config.gregorCommand.length === 0) throw new Error('gregorCommand must name a program');
    this.#process = this.#newProcess();
  }

  get name(): string {
    return `broker-${this.id}`;
  }

  get propertiesFile(): string {
    return join(this.dir, 'server.properties');
  }

  get logFile(): string {
    return join(this.dir, 'broker.log');
  }

  get pidFile(): string {
    return join(this.dir, 'broker.pid');
  }

  get dataDir(): string {
    return join(this.dir, 'data');
  }

  get bootstrapServer(): string {
    return `${this.host}:${this.port}`;
  }

  get pid(): number | undefined {
    return this.#process.pid;
  }

  isRunning(): boolean {
    return this.#process.isRunning();
  }

  /** Adopts a broker started earlier (by another invocation) from the pid file; true if it runs. */
  reattach(): boolean {
    if (this.isRunning()) return true;
    const attached = ManagedProcess.attach({
      name: this.name,
      pidFile: this.pidFile,
      logFile: this.logFile,
      cmdlineContains: this.propertiesFile,
      stopGraceMs: this.#config.stopGraceMs ?? 30_000,
    });
    if (attached) this.#process = attached;
    return attached !== null;
  }

  /** Writes server.properties and spawns the broker; does not wait for it to serve (see waitReady). */
  async start(): Promise<void> {
    if (this.isRunning()) throw new Error(`${this.name} is already running (pid ${this.pid})`);
    mkdirSync(this.dataDir, { recursive: true });
    writeFileSync(this.propertiesFile, renderProperties(this.#config.properties, `${this.name} of a local gregor cluster (rewritten by \`gregor cluster up\`)`));
    if (!this.#process.restartable) this.#process = this.#newProcess();
    await this.#process.start();
  }

  /** Whether it answers: HTTP /healthz when the admin server is on, else the Kafka port accepts connections. */
  async answers(timeoutMs = 2000): Promise<boolean> {
    if (this.httpPort >= 0) return httpHealthy(this.host, this.httpPort, '/healthz', timeoutMs);
    return portOpen(this.host, this.port, timeoutMs);
  }

  /**
   * Polls until the broker answers and `registered()` (e.g. its id is under /brokers/ids) says
   * yes; fails fast with the log tail when the process dies.
   */
  async waitReady(registered: () => Promise<boolean> = async () => true, timeoutMs = this.#config.readyTimeoutMs ?? 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.isRunning()) throw new Error(`${this.name} exited before serving; last lines of ${this.logFile}:\n${this.tailLog()}`);
      if ((await this.answers(1000)) && (await registered())) return;
      if (Date.now() >= deadline) {
        throw new TimeoutError(`${this.name} did not register and answer within ${timeoutMs} ms; last lines of ${this.logFile}:\n${this.tailLog()}`);
      }
      await sleep(200);
    }
  }

  /** SIGTERM (the broker does a controlled shutdown), SIGKILL after the grace period. */
  stop(graceMs?: number): Promise<void> {
    return this.#process.stop(graceMs);
  }

  /** SIGKILL (crash). */
  kill(): Promise<void> {
    return this.#process.kill();
  }

  /** SIGSTOP: the broker hangs with its sockets and ZooKeeper session open. */
  pause(): void {
    this.#process.pause();
  }

  resume(): void {
    this.#process.resume();
  }

  waitForExit(timeoutMs?: number): Promise<boolean> {
    return this.#process.waitForExit(timeoutMs);
  }

  tailLog(lines = 20): string {
    return this.#process.tailLog(lines);
  }

  #newProcess(): ManagedProcess {
    const [command, ...args] = this.#config.gregorCommand;
    // KAFKA_* variables would override the file (the broker reads them as settings).
    const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('KAFKA_')));
    return new ManagedProcess({
      name: this.name,
      command: command!,
      args: [...args, 'broker', '--config', this.propertiesFile],
      env,
      cwd: this.dir,
      logFile: this.logFile,
      pidFile: this.pidFile,
      detached: this.#config.detached ?? false,
      stopGraceMs: this.#config.stopGraceMs ?? 30_000,
    });
  }
}
