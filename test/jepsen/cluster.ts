// The cluster a Jepsen scenario runs against, whatever runs it: broker processes (test/support/process-cluster.ts)
// or the compose.yaml containers (test/chaos/compose-cluster.ts). Faults use only this interface.
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import type { KafkaZkClient } from '@gregor/zookeeper';
import type { ComposeCluster } from '../chaos/compose-cluster.js';
import type { ProcessCluster } from '../support/process-cluster.js';
import { ContainerNetwork } from './network.js';

export interface JepsenCluster {
  readonly kind: 'processes' | 'compose';
  readonly brokerIds: number[];
  readonly zookeeperServices: string[];
  /** zookeeper.session.timeout.ms of the brokers. */
  readonly sessionTimeoutMs: number;
  readonly kafkaZk: KafkaZkClient;
  bootstrap(): string;
  /** kill -9. */
  kill(id: number): Promise<void>;
  /** Starts a killed or stopped broker and waits until it serves. */
  start(id: number): Promise<void>;
  /** SIGSTOP / SIGCONT (docker pause / unpause). */
  pause(id: number): Promise<void>;
  resume(id: number): Promise<void>;
  /** SIGTERM (controlled shutdown), wait for the exit, start again and wait until it serves. */
  restart(id: number): Promise<void>;
  isRunning(id: number): boolean | Promise<boolean>;
  /** Network faults (containers only). */
  readonly network: ContainerNetwork | null;
  /** The compose service of a broker or ZooKeeper node (containers only). */
  service(brokerId: number): string;
  /** Text of each broker's log, kept with a failing scenario's history. */
  brokerLogs(): Promise<Map<string, string>>;
}

export function processCluster(cluster: ProcessCluster, sessionTimeoutMs: number): JepsenCluster {
  const b = (id: number) => {
    const broker = cluster.brokers.get(id);
    if (!broker) throw new Error(`no broker ${id}`);
    return broker;
  };
  return {
    kind: 'processes',
    brokerIds: [...cluster.brokers.keys()],
    zookeeperServices: [],
    sessionTimeoutMs,
    kafkaZk: cluster.kafkaZk,
    bootstrap: () => cluster.bootstrap(),
    kill: (id) => b(id).kill(),
    start: (id) => b(id).start(),
    pause: async (id) => b(id).pause(),
    resume: async (id) => b(id).resume(),
    async restart(id) {
      await b(id).stop();
      await b(id).start();
    },
    isRunning: (id) => b(id).isRunning(),
    network: null,
    service: (id) => `broker-${id}`,
    async brokerLogs() {
      const out = new Map<string, string>();
      for (const [id, broker] of cluster.brokers) if (existsSync(broker.logFile)) out.set(`broker-${id}.log`, readFileSync(broker.logFile, 'utf8'));
      return out;
    },
  };
}

const run = promisify(execFile);

export function composeCluster(cluster: ComposeCluster, sessionTimeoutMs: number): JepsenCluster {
  const service = (id: number) => `broker${id}`;
  const network = new ContainerNetwork(cluster.project);
  return {
    kind: 'compose',
    brokerIds: [1, 2, 3],
    zookeeperServices: ['zk1', 'zk2', 'zk3'],
    sessionTimeoutMs,
    kafkaZk: cluster.kafkaZk,
    bootstrap: () => cluster.bootstrap(),
    kill: async (id) => void (await cluster.kill(service(id))),
    async start(id) {
      await cluster.startService(service(id));
      await cluster.waitHealthy(service(id), 90_000);
    },
    pause: async (id) => void (await cluster.pause(service(id))),
    resume: async (id) => void (await cluster.unpause(service(id))),
    async restart(id) {
      await run('docker', ['stop', '-t', '60', await network.containerId(service(id))], { timeout: 90_000 });
      await cluster.startService(service(id));
      await cluster.waitHealthy(service(id), 90_000);
    },
    isRunning: (id) => network.running(service(id)),
    network,
    service,
    async brokerLogs() {
      const out = new Map<string, string>();
      for (const id of [1, 2, 3]) {
        const r = await run('docker', ['logs', '--tail', '20000', await network.containerId(service(id))], { timeout: 60_000, maxBuffer: 256 * 1024 * 1024 }).catch((e: unknown) => ({ stdout: '', stderr: String(e) }));
        out.set(`broker${id}.log`, `${r.stdout}${r.stderr}`);
      }
      return out;
    },
  };
}
