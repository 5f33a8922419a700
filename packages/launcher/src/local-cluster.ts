import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { sleep } from '@gregor/common';
import { BrokerProcess } from './broker-process.js';
import { freePorts } from './free-port.js';
import { repoGregorCommand } from './gregor-command.js';
import type { ClusterSpec } from './cluster-spec.js';
import type { ZooKeeperMode } from './four-letter-word.js';
import { localBrokerProperties } from './server-properties.js';
import { readZkClusterView, type ZkClusterView } from './zk-inspect.js';
import { ZooKeeperEnsemble } from './zookeeper-ensemble.js';
import type { ZooKeeperNode } from './zookeeper-node.js';

export interface LocalClusterOptions {
  /** Everything lives here: cluster.json, zookeeper/zk<i>/, broker-<id>/. */
  dir: string;
  spec: ClusterSpec;
  /** Program and leading arguments that run `gregor`. Default: the compiled CLI of this checkout (repoGregorCommand()). */
  gregorCommand?: readonly string[];
  /** Nodes outlive this process (the CLI); tests leave it false so nothing leaks. Default false. */
  detached?: boolean;
  /** Bound on waiting for ZooKeeper to serve and for each broker to register and answer. Default 90000. */
  readyTimeoutMs?: number;
  /** SIGTERM grace of a broker before SIGKILL. Default 30000. */
  brokerStopGraceMs?: number;
  /** Heap of each ZooKeeper JVM. Default 128. */
  zookeeperHeapMb?: number;
}

export type NodeKind = 'zookeeper' | 'broker';

export interface NodeStatus {
  /** `zk-<id>` or `broker-<id>`. */
  name: string;
  kind: NodeKind;
  id: number;
  pid: number | null;
  host: string;
  /** Client port (ZooKeeper) or Kafka port (broker). */
  port: number;
  /** HTTP admin port of a broker (-1 when disabled); absent for ZooKeeper. */
  httpPort?: number;
  running: boolean;
  /** ZooKeeper nodes: what `srvr` reports (null when down or not serving). */
  zkMode?: ZooKeeperMode | null;
  /** Brokers: present under /brokers/ids (null when ZooKeeper cannot tell). */
  registered?: boolean | null;
  /** Brokers: /healthz (or the Kafka port when HTTP is off) answers. */
  answers?: boolean;
  /** Brokers: holds /controller. */
  controller?: boolean;
  logFile: string;
}

export interface ClusterStatus {
  dir: string;
  zookeeperConnect: string;
  bootstrapServers: string;
  /** null when no controller is elected or ZooKeeper does not answer. */
  controllerId: number | null;
  zookeeperServing: boolean;
  nodes: NodeStatus[];
}

const STATE_FILE = 'cluster.json';

interface SavedCluster {
  spec: ClusterSpec;
  gregorCommand: string[];
}

/**
 * A ZooKeeper ensemble and gregor brokers on this machine under one folder. Every node is a
 * separate process with a pid file, so another invocation (the CLI run again, a test) re-attaches
 * to what runs and starts only what is missing.
 */
export class LocalCluster {
  readonly dir: string;
  readonly spec: ClusterSpec;
  readonly zookeeper: ZooKeeperEnsemble;
  readonly brokers: BrokerProcess[];
  readonly #options: LocalClusterOptions;
  readonly #readyTimeoutMs: number;

  constructor(options: LocalClusterOptions) {
    this.#options = { ...options, gregorCommand: options.gregorCommand ?? repoGregorCommand() };
    this.dir = resolve(options.dir);
    this.spec = options.spec;
    this.#readyTimeoutMs = options.readyTimeoutMs ?? 90_000;
    const zk = options.spec.zookeeper;
    this.zookeeper = new ZooKeeperEnsemble({
      dir: join(this.dir, 'zookeeper'),
      size: zk.nodes.length,
      ports: zk.nodes,
      tickTime: zk.tickTime,
      heapMb: options.zookeeperHeapMb,
      detached: options.detached,
      readyTimeoutMs: this.#readyTimeoutMs,
    });
    const zookeeperConnect = this.zookeeper.connectString;
    this.brokers = options.spec.brokers.map((b) => {
      const dir = join(this.dir, `broker-${b.id}`);
      return new BrokerProcess({
        id: b.id,
        dir,
        host: b.host,
        port: b.port,
        httpPort: b.httpPort,
        properties: localBrokerProperties(b, {
          zookeeperConnect,
          logDir: join(dir, 'data'),
          clusterSize: options.spec.brokers.length,
          common: options.spec.properties,
        }),
        gregorCommand: this.#options.gregorCommand!,
        detached: options.detached,
        stopGraceMs: options.brokerStopGraceMs,
        readyTimeoutMs: this.#readyTimeoutMs,
      });
    });
    for (const node of this.zookeeper.nodes) node.reattach();
    for (const broker of this.brokers) broker.reattach();
  }

  /**
   * A cluster on ports that are free right now (tests): `zookeepers` nodes (default 1) with
   * tickTime 500, `brokers` brokers with ids 1..N (default 3) and short ZooKeeper sessions.
   */
  static async onFreePorts(
    options: Omit<LocalClusterOptions, 'spec'> & {
      brokers?: number;
      zookeepers?: number;
      /** Properties for every broker (over zookeeper.session.timeout.ms=2000). */
      properties?: Record<string, string>;
      /** Properties of one broker. */
      brokerProperties?: (id: number) => Record<string, string>;
      /** Give each broker an HTTP admin port. Default true. */
      http?: boolean;
    },
  ): Promise<LocalCluster> {
    const zookeepers = options.zookeepers ?? 1;
    const brokers = options.brokers ?? 3;
    const ports = await freePorts(zookeepers * 3 + brokers * 3);
    const spec: ClusterSpec = {
      zookeeper: {
        nodes: Array.from({ length: zookeepers }, (_, i) => ({ clientPort: ports[i * 3]!, peerPort: ports[i * 3 + 1]!, electionPort: ports[i * 3 + 2]! })),
        tickTime: 500,
      },
      brokers: Array.from({ length: brokers }, (_, i) => ({
        id: i + 1,
        host: '127.0.0.1',
        port: ports[zookeepers * 3 + i * 3]!,
        httpPort: options.http === false ? -1 : ports[zookeepers * 3 + i * 3 + 1]!,
        internalPort: ports[zookeepers * 3 + i * 3 + 2]!,
        properties: options.brokerProperties?.(i + 1) ?? {},
      })),
      properties: { 'zookeeper.session.timeout.ms': '2000', ...options.properties },
    };
    return new LocalCluster({ ...options, spec });
  }

  /** True when `dir` holds a cluster made by `up()`. */
  static exists(dir: string): boolean {
    return existsSync(join(dir, STATE_FILE));
  }

  /** The cluster saved in `dir` (spec and command from its cluster.json), re-attached to what runs. */
  static open(dir: string, options: Omit<LocalClusterOptions, 'dir' | 'spec' | 'gregorCommand'> & { gregorCommand?: readonly string[] } = {}): LocalCluster {
    const file = join(dir, STATE_FILE);
    if (!existsSync(file)) throw new Error(`${resolve(dir)} holds no local cluster (${STATE_FILE} missing); run \`gregor cluster up\` first`);
    const saved = JSON.parse(readFileSync(file, 'utf8')) as SavedCluster;
    return new LocalCluster({ ...options, dir, spec: saved.spec, gregorCommand: options.gregorCommand ?? saved.gregorCommand });
  }

  /** The spec saved in `dir`, or null. */
  static savedSpec(dir: string): ClusterSpec | null {
    const file = join(dir, STATE_FILE);
    return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as SavedCluster).spec : null;
  }

  get zookeeperConnect(): string {
    return this.zookeeper.connectString;
  }

  get bootstrapServers(): string {
    return this.brokers.map((b) => b.bootstrapServer).join(',');
  }

  /** Every node name: zk-1.., broker-<id>... */
  nodeNames(): string[] {
    return [...this.zookeeper.nodes.map((n) => `zk-${n.config.id}`), ...this.brokers.map((b) => b.name)];
  }

  broker(id: number): BrokerProcess {
    const broker = this.brokers.find((b) => b.id === id);
    if (!broker) throw new Error(`no broker ${id} in this cluster (brokers: ${this.brokers.map((b) => b.id).join(', ')})`);
    return broker;
  }

  zookeeperNode(id: number): ZooKeeperNode {
    return this.zookeeper.node(id);
  }

  /** Resolves `zk-2` / `zookeeper-2` / `broker-3`. */
  node(name: string): { kind: 'zookeeper'; node: ZooKeeperNode } | { kind: 'broker'; node: BrokerProcess } {
    const match = /^(zk|zookeeper|broker)-(\d+)$/.exec(name.trim());
    if (!match) throw new Error(`unknown node "${name}": use one of ${this.nodeNames().join(', ')}`);
    const id = Number(match[2]);
    if (match[1] === 'broker') return { kind: 'broker', node: this.broker(id) };
    if (id < 1 || id > this.zookeeper.size) throw new Error(`no ZooKeeper node ${id} (nodes: ${this.nodeNames().join(', ')})`);
    return { kind: 'zookeeper', node: this.zookeeper.node(id) };
  }

  /**
   * Starts whatever is not running — ZooKeeper first (waits until it serves), then the brokers —
   * and, with `wait` (default), resolves once every broker is registered in ZooKeeper and answers.
   * Returns the names of the nodes it started.
   */
  async up(options: { wait?: boolean; onProgress?: (message: string) => void } = {}): Promise<string[]> {
    const progress = options.onProgress ?? (() => {});
    this.#save();
    const started: string[] = [];
    const zkMissing = this.zookeeper.nodes.filter((n) => !n.isRunning());
    if (zkMissing.length > 0) progress(`starting ZooKeeper ${zkMissing.map((n) => `zk-${n.config.id}`).join(', ')}`);
    await this.zookeeper.start(); // starts the missing nodes, waits until all serve
    started.push(...zkMissing.map((n) => `zk-${n.config.id}`));
    const brokersMissing = this.brokers.filter((b) => !b.isRunning());
    for (const broker of brokersMissing) {
      await this.#waitStaleRegistrationGone(broker, progress);
      progress(`starting ${broker.name} on ${broker.bootstrapServer}`);
      await broker.start();
      started.push(broker.name);
    }
    if (options.wait ?? true) {
      progress(`waiting for ${this.brokers.length} broker(s) to register and answer, and for a controller`);
      await this.waitForBrokers();
      await this.waitForController();
    }
    return started;
  }

  /** Stops the brokers one by one (controller last, so leadership moves once), then ZooKeeper. */
  async down(options: { onProgress?: (message: string) => void } = {}): Promise<void> {
    const progress = options.onProgress ?? (() => {});
    const view = await this.zkView(2000);
    const controllerId = view?.controllerId ?? null;
    const order = [...this.brokers].sort((a, b) => Number(a.id === controllerId) - Number(b.id === controllerId));
    for (const broker of order) {
      if (!broker.isRunning()) continue;
      progress(`stopping ${broker.name} (pid ${broker.pid})`);
      await broker.stop();
    }
    const zkRunning = this.zookeeper.nodes.filter((n) => n.isRunning());
    if (zkRunning.length > 0) progress(`stopping ZooKeeper ${zkRunning.map((n) => `zk-${n.config.id}`).join(', ')}`);
    await this.zookeeper.stop();
  }

  /** SIGKILLs every node (test teardown). */
  async kill(): Promise<void> {
    await Promise.all(this.brokers.map((b) => b.kill()));
    await this.zookeeper.kill();
  }

  /** Starts one node; a broker is awaited until registered and answering, a ZooKeeper node until it serves (when a quorum can form). */
  async startNode(name: string, options: { wait?: boolean } = {}): Promise<void> {
    const target = this.node(name);
    this.#save();
    if (target.kind === 'zookeeper') {
      const running = this.zookeeper.nodes.filter((n) => n.isRunning()).length + 1;
      const quorum = running > this.zookeeper.size / 2;
      await target.node.start({ waitReady: (options.wait ?? true) && quorum });
      return;
    }
    await this.#waitStaleRegistrationGone(target.node, () => {});
    await target.node.start();
    if (options.wait ?? true) await this.waitForBroker(target.node.id);
  }

  /** SIGTERM (brokers shut down in a controlled way), SIGKILL after the grace period. */
  async stopNode(name: string): Promise<void> {
    await this.node(name).node.stop();
  }

  /** SIGKILL. */
  async killNode(name: string): Promise<void> {
    await this.node(name).node.kill();
  }

  /** SIGSTOP. */
  pauseNode(name: string): void {
    this.node(name).node.pause();
  }

  /** SIGCONT. */
  resumeNode(name: string): void {
    this.node(name).node.resume();
  }

  /** Brokers registered and controller, as ZooKeeper sees them (null when it does not answer). */
  zkView(timeoutMs = 3000): Promise<ZkClusterView | null> {
    return readZkClusterView(this.zookeeperConnect, timeoutMs);
  }

  async isRegistered(brokerId: number): Promise<boolean> {
    return (await this.zkView(2000))?.registeredBrokers.includes(brokerId) ?? false;
  }

  /** Waits until the broker is registered in ZooKeeper and answers; fails with its log tail if it died. */
  async waitForBroker(brokerId: number, timeoutMs = this.#readyTimeoutMs): Promise<void> {
    await this.broker(brokerId).waitReady(() => this.isRegistered(brokerId), timeoutMs);
  }

  async waitForBrokers(timeoutMs = this.#readyTimeoutMs): Promise<void> {
    await Promise.all(this.brokers.map((b) => this.waitForBroker(b.id, timeoutMs)));
  }

  /** Waits until ZooKeeper names a controller; returns its id. */
  async waitForController(timeoutMs = this.#readyTimeoutMs): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const id = (await this.zkView(2000))?.controllerId ?? null;
      if (id !== null) return id;
      if (Date.now() >= deadline) throw new Error(`no controller elected within ${timeoutMs} ms`);
      await sleep(200);
    }
  }

  async status(): Promise<ClusterStatus> {
    const zkNodes = await Promise.all(
      this.zookeeper.nodes.map(async (n): Promise<NodeStatus> => {
        const running = n.isRunning();
        return {
          name: `zk-${n.config.id}`,
          kind: 'zookeeper',
          id: n.config.id,
          pid: n.pid ?? null,
          host: '127.0.0.1',
          port: n.config.clientPort,
          running,
          zkMode: running ? await n.mode(1000) : null,
          logFile: n.logFile,
        };
      }),
    );
    const zookeeperServing = zkNodes.some((n) => n.zkMode !== null && n.zkMode !== undefined);
    const view = zookeeperServing ? await this.zkView(3000) : null;
    const brokerNodes = await Promise.all(
      this.brokers.map(async (b): Promise<NodeStatus> => {
        const running = b.isRunning();
        return {
          name: b.name,
          kind: 'broker',
          id: b.id,
          pid: b.pid ?? null,
          host: b.host,
          port: b.port,
          httpPort: b.httpPort,
          running,
          registered: view ? view.registeredBrokers.includes(b.id) : null,
          answers: running ? await b.answers(1000) : false,
          controller: view?.controllerId === b.id,
          logFile: b.logFile,
        };
      }),
    );
    return {
      dir: this.dir,
      zookeeperConnect: this.zookeeperConnect,
      bootstrapServers: this.bootstrapServers,
      controllerId: view?.controllerId ?? null,
      zookeeperServing,
      nodes: [...zkNodes, ...brokerNodes],
    };
  }

  /** A crashed broker's registration lives until its session expires; a new process would clash with it. */
  async #waitStaleRegistrationGone(broker: BrokerProcess, progress: (message: string) => void): Promise<void> {
    if (!(await this.isRegistered(broker.id))) return;
    const sessionMs = Number(this.#brokerProperty(broker.id, 'zookeeper.session.timeout.ms') ?? 18_000);
    progress(`waiting for the old ZooKeeper session of ${broker.name} to expire (up to ${Math.round(sessionMs / 1000) + 5} s)`);
    const deadline = Date.now() + sessionMs + 5000;
    while (Date.now() < deadline && (await this.isRegistered(broker.id))) await sleep(250);
  }

  #brokerProperty(id: number, name: string): string | undefined {
    const b = this.spec.brokers.find((x) => x.id === id);
    return b?.properties[name] ?? this.spec.properties[name] ?? (name === 'zookeeper.session.timeout.ms' ? '6000' : undefined);
  }

  #save(): void {
    mkdirSync(this.dir, { recursive: true });
    const saved: SavedCluster = { spec: this.spec, gregorCommand: [...this.#options.gregorCommand!] };
    writeFileSync(join(this.dir, STATE_FILE), `${JSON.stringify(saved, null, 2)}\n`);
  }
}
