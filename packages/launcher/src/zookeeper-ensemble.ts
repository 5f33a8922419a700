import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { freePorts } from './free-port.js';
import { ZooKeeperNode } from './zookeeper-node.js';
import type { QuorumServer } from './zoo-cfg.js';

export interface ZooKeeperEnsembleConfig {
  /** Node i lives in `<dir>/zk<i>`. */
  dir: string;
  /** 1 = standalone. */
  size: number;
  /** Client port of node i = clientPortBase + i - 1. Default 2181. */
  clientPortBase?: number;
  /** Default 2888. */
  peerPortBase?: number;
  /** Default 3888. */
  electionPortBase?: number;
  /** Explicit ports per node (overrides the bases), e.g. from freePorts(). */
  ports?: Array<{ clientPort: number; peerPort: number; electionPort: number }>;
  tickTime?: number;
  heapMb?: number;
  detached?: boolean;
  readyTimeoutMs?: number;
  stopGraceMs?: number;
}

const ENSEMBLE_FILE = 'ensemble.json';

/** N ZooKeeper servers on 127.0.0.1 (or one standalone server when size is 1). */
export class ZooKeeperEnsemble {
  readonly dir: string;
  readonly nodes: ZooKeeperNode[];
  readonly #config: ZooKeeperEnsembleConfig;

  constructor(config: ZooKeeperEnsembleConfig) {
    this.#config = config;
    if (!Number.isInteger(config.size) || config.size < 1) throw new Error(`ensemble size must be a positive integer, got ${config.size}`);
    this.dir = resolve(config.dir);
    const ports = config.ports ?? [];
    const servers: QuorumServer[] = [];
    const clientPorts: number[] = [];
    for (let id = 1; id <= config.size; id++) {
      const p = ports[id - 1];
      clientPorts.push(p?.clientPort ?? (config.clientPortBase ?? 2181) + id - 1);
      servers.push({
        id,
        peerPort: p?.peerPort ?? (config.peerPortBase ?? 2888) + id - 1,
        electionPort: p?.electionPort ?? (config.electionPortBase ?? 3888) + id - 1,
      });
    }
    this.nodes = servers.map(
      (s, i) =>
        new ZooKeeperNode({
          id: s.id,
          dir: join(this.dir, `zk${s.id}`),
          clientPort: clientPorts[i]!,
          servers: config.size > 1 ? servers : [],
          tickTime: config.tickTime,
          heapMb: config.heapMb,
          detached: config.detached,
          readyTimeoutMs: config.readyTimeoutMs,
          stopGraceMs: config.stopGraceMs,
        }),
    );
  }

  /** An ensemble on ports that are free right now (tests). */
  static async onFreePorts(config: Omit<ZooKeeperEnsembleConfig, 'ports' | 'clientPortBase' | 'peerPortBase' | 'electionPortBase'>): Promise<ZooKeeperEnsemble> {
    const all = await freePorts(config.size * 3);
    const ports = Array.from({ length: config.size }, (_, i) => ({
      clientPort: all[i * 3]!,
      peerPort: all[i * 3 + 1]!,
      electionPort: all[i * 3 + 2]!,
    }));
    return new ZooKeeperEnsemble({ ...config, ports });
  }

  /** Re-attaches to an ensemble started earlier (maybe by another process) in `dir`. */
  static attach(dir: string): ZooKeeperEnsemble {
    const file = join(dir, ENSEMBLE_FILE);
    if (!existsSync(file)) throw new Error(`${dir} holds no ZooKeeper ensemble (${ENSEMBLE_FILE} missing)`);
    const ensemble = new ZooKeeperEnsemble(JSON.parse(readFileSync(file, 'utf8')) as ZooKeeperEnsembleConfig);
    for (const node of ensemble.nodes) node.reattach();
    return ensemble;
  }

  get size(): number {
    return this.nodes.length;
  }

  get connectString(): string {
    return this.nodes.map((n) => n.connectString).join(',');
  }

  /** Node by myid (1-based). */
  node(id: number): ZooKeeperNode {
    const node = this.nodes[id - 1];
    if (!node) throw new Error(`no ZooKeeper node ${id} (ensemble of ${this.size})`);
    return node;
  }

  /** Starts every node that is not running and waits until all of them serve. */
  async start(): Promise<void> {
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(join(this.dir, ENSEMBLE_FILE), `${JSON.stringify({ ...this.#config, dir: this.dir }, null, 2)}\n`);
    const starting = this.nodes.filter((n) => !n.isRunning());
    // A quorum forms only once a majority runs, so start all before waiting on any.
    await Promise.all(starting.map((n) => n.start({ waitReady: false })));
    try {
      await Promise.all(this.nodes.map((n) => n.waitReady()));
    } catch (error) {
      await Promise.allSettled(starting.map((n) => n.kill()));
      throw error;
    }
  }

  async stop(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.stop()));
  }

  async kill(): Promise<void> {
    await Promise.all(this.nodes.map((n) => n.kill()));
  }
}
