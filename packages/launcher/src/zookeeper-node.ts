import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sleep, TimeoutError } from '@gregor/common';
import { serverMode, type ZooKeeperMode } from './four-letter-word.js';
import { ManagedProcess } from './managed-process.js';
import { renderZooCfg, type QuorumServer } from './zoo-cfg.js';
import { findZooKeeper } from './zookeeper-install.js';


export interface ZooKeeperNodeConfig {
  /** myid; 1 for a standalone node. */
  id: number;
  /** Holds zoo.cfg, data/, zookeeper.log, zookeeper.pid, node.json. */
  dir: string;
  clientPort: number;
  /** Every member of the ensemble including this node; empty or absent for standalone. */
  servers?: QuorumServer[];
  /** Default 2000; tests use 500 so 2–10 s session timeouts are allowed (ZooKeeper clamps to 2–20 ticks). */
  tickTime?: number;
  /** Default 10 ticks. */
  initLimit?: number;
  /** Default 5 ticks. */
  syncLimit?: number;
  /** Default 128. */
  heapMb?: number;
  /** Default: found by findZooKeeper (JAVA_HOME, /usr/bin/java, PATH). */
  java?: string;
  /** Default: found by findZooKeeper (ZOOKEEPER_CLASSPATH, ZOOKEEPER_HOME, Debian's package, usual folders). */
  classpath?: string;
  /** Keep running after this process exits. Default false. */
  detached?: boolean;
  /** How long start() waits for `srvr` to report a Mode. Default 60000. */
  readyTimeoutMs?: number;
  /** SIGTERM grace before SIGKILL. Default 10000. */
  stopGraceMs?: number;
}

const NODE_FILE = 'node.json';

/** One ZooKeeper 3.8 server run as a plain java process on 127.0.0.1. */
export class ZooKeeperNode {
  readonly config: Required<Omit<ZooKeeperNodeConfig, 'servers'>> & { servers: QuorumServer[] };
  /** Why no ZooKeeper installation was found; start() reports it (a node can be inspected without one). */
  readonly #installProblem: Error | undefined;
  #process: ManagedProcess;

  constructor(config: ZooKeeperNodeConfig) {
    let install = { java: config.java ?? '', classpath: config.classpath ?? '' };
    let problem: Error | undefined;
    if (!install.java || !install.classpath) {
      try {
        const found = findZooKeeper();
        install = { java: install.java || found.java, classpath: install.classpath || found.classpath };
      } catch (err) {
        problem = err as Error;
      }
    }
    this.#installProblem = problem;
    this.config = {
      id: config.id,
      dir: resolve(config.dir),
      clientPort: config.clientPort,
      servers: config.servers ?? [],
      tickTime: config.tickTime ?? 2000,
      initLimit: config.initLimit ?? 10,
      syncLimit: config.syncLimit ?? 5,
      heapMb: config.heapMb ?? 128,
      java: install.java,
      classpath: install.classpath,
      detached: config.detached ?? false,
      readyTimeoutMs: config.readyTimeoutMs ?? 60_000,
      stopGraceMs: config.stopGraceMs ?? 10_000,
    };
    this.#process = this.#newProcess();
  }

  /** Re-attaches to a node described by `<dir>/node.json` (the process may or may not be running). */
  static attach(dir: string): ZooKeeperNode {
    const file = join(dir, NODE_FILE);
    if (!existsSync(file)) throw new Error(`${dir} holds no ZooKeeper node (${NODE_FILE} missing)`);
    const node = new ZooKeeperNode(JSON.parse(readFileSync(file, 'utf8')) as ZooKeeperNodeConfig);
    node.reattach();
    return node;
  }

  /** Adopts the process named in the pid file if it is alive and runs this node's config; true if it did. */
  reattach(): boolean {
    if (this.isRunning()) return true;
    const attached = ManagedProcess.attach({
      name: this.name,
      pidFile: this.pidFile,
      logFile: this.logFile,
      cmdlineContains: this.cfgFile,
      stopGraceMs: this.config.stopGraceMs,
    });
    if (attached) this.#process = attached;
    return attached !== null;
  }

  get name(): string {
    return `zookeeper-${this.config.id}`;
  }

  get connectString(): string {
    return `127.0.0.1:${this.config.clientPort}`;
  }

  get cfgFile(): string {
    return join(this.config.dir, 'zoo.cfg');
  }

  get logFile(): string {
    return join(this.config.dir, 'zookeeper.log');
  }

  get pidFile(): string {
    return join(this.config.dir, 'zookeeper.pid');
  }

  get pid(): number | undefined {
    return this.#process.pid;
  }

  isRunning(): boolean {
    return this.#process.isRunning();
  }

  /** `standalone` / `leader` / `follower`, or null when down or not serving. */
  mode(timeoutMs = 2000): Promise<ZooKeeperMode | null> {
    return serverMode(this.config.clientPort, timeoutMs);
  }

  /** Writes the config and starts the server; with `waitReady` (default) resolves once it serves. */
  async start(options: { waitReady?: boolean } = {}): Promise<void> {
    // reattach() also catches a server started by another invocation from the same folder.
    if (this.reattach()) throw new Error(`${this.name} is already running (pid ${this.pid})`);
    if (this.#installProblem) throw this.#installProblem;
    this.#writeConfig();
    // A process attached from a pid file has no command line: make a fresh one.
    if (!this.#process.restartable) this.#process = this.#newProcess();
    await this.#process.start();
    if (options.waitReady ?? true) await this.waitReady();
  }

  /** Polls `srvr` until a Mode line appears; fails fast with the log tail if the process dies. */
  async waitReady(timeoutMs = this.config.readyTimeoutMs): Promise<ZooKeeperMode> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      if (!this.isRunning()) {
        throw new Error(`${this.name} exited before serving; last log lines:\n${this.#process.tailLog()}`);
      }
      const mode = await this.mode(1000);
      if (mode) return mode;
      if (Date.now() >= deadline) {
        throw new TimeoutError(`${this.name} did not serve on port ${this.config.clientPort} within ${timeoutMs} ms; last log lines:\n${this.#process.tailLog()}`);
      }
      await sleep(150);
    }
  }

  /** SIGTERM, then SIGKILL after the grace period. */
  stop(graceMs?: number): Promise<void> {
    return this.#process.stop(graceMs);
  }

  /** SIGKILL (crash). */
  kill(): Promise<void> {
    return this.#process.kill();
  }

  /** SIGSTOP: the server hangs with its sockets open. */
  pause(): void {
    this.#process.pause();
  }

  resume(): void {
    this.#process.resume();
  }

  #newProcess(): ManagedProcess {
    const c = this.config;
    return new ManagedProcess({
      name: this.name,
      command: c.java,
      args: [
        `-Xms${c.heapMb}m`,
        `-Xmx${c.heapMb}m`,
        '-XX:+UseSerialGC',
        '-XX:TieredStopAtLevel=1',
        '-XX:+ExitOnOutOfMemoryError',
        '-Djava.net.preferIPv4Stack=true',
        '-Dzookeeper.admin.enableServer=false',
        '-Dzookeeper.jmx.log4j.disable=true',
        // slf4j-simple's level (Debian's classpath): warnings and errors only, to stderr, i.e. the log file.
        '-Dorg.slf4j.simpleLogger.defaultLogLevel=warn',
        '-cp',
        c.classpath,
        'org.apache.zookeeper.server.quorum.QuorumPeerMain',
        this.cfgFile,
      ],
      cwd: c.dir,
      logFile: this.logFile,
      pidFile: this.pidFile,
      detached: c.detached,
      stopGraceMs: c.stopGraceMs,
    });
  }

  #writeConfig(): void {
    const c = this.config;
    const dataDir = join(c.dir, 'data');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(
      this.cfgFile,
      renderZooCfg({ tickTime: c.tickTime, initLimit: c.initLimit, syncLimit: c.syncLimit, dataDir, clientPort: c.clientPort, servers: c.servers }),
    );
    writeFileSync(join(dataDir, 'myid'), `${c.id}\n`);
    writeFileSync(join(c.dir, NODE_FILE), `${JSON.stringify(c, null, 2)}\n`);
  }
}
