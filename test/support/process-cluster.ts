// Test support: a 3-node ZooKeeper ensemble and N brokers as OS processes, for failure tests.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { silentLogger } from '@gregor/common';
import { freePorts, ZooKeeperEnsemble } from '@gregor/launcher';
import { KafkaZkClient, ZkClient } from '@gregor/zookeeper';
import { BrokerProcess } from './broker-process.js';

export interface ProcessClusterOptions {
  brokers: number;
  zookeepers: number;
  brokerProps?: Record<string, string>;
  /** Settings of single brokers on top of brokerProps (e.g. log.dirs on a small filesystem). */
  perBrokerProps?: Record<number, Record<string, string>>;
}

export class ProcessCluster {
  readonly dir: string;
  readonly ensemble: ZooKeeperEnsemble;
  readonly brokers = new Map<number, BrokerProcess>();
  #zk: ZkClient | null = null;
  kafkaZk!: KafkaZkClient;

  private constructor(dir: string, ensemble: ZooKeeperEnsemble) {
    this.dir = dir;
    this.ensemble = ensemble;
  }

  static async start(opts: ProcessClusterOptions): Promise<ProcessCluster> {
    const dir = mkdtempSync(join(tmpdir(), 'gregor-failure-'));
    const ensemble = await ZooKeeperEnsemble.onFreePorts({ dir: join(dir, 'zk'), size: opts.zookeepers, tickTime: 500, stopGraceMs: 3000 });
    await ensemble.start();
    const cluster = new ProcessCluster(dir, ensemble);
    const ports = await freePorts(opts.brokers);
    for (let id = 1; id <= opts.brokers; id++) {
      cluster.brokers.set(
        id,
        new BrokerProcess({ brokerId: id, port: ports[id - 1]!, dir: join(dir, `broker-${id}`), zookeeperConnect: ensemble.connectString, props: { ...opts.brokerProps, ...opts.perBrokerProps?.[id] } }),
      );
    }
    try {
      await Promise.all([...cluster.brokers.values()].map((b) => b.start()));
      cluster.#zk = await ZkClient.connect({ connectString: ensemble.connectString, sessionTimeoutMs: 10_000, operationTimeoutMs: 30_000, logger: silentLogger() });
    } catch (err) {
      // The caller never gets the cluster to stop: leave no process behind.
      await cluster.stop();
      throw err;
    }
    cluster.kafkaZk = new KafkaZkClient(cluster.#zk);
    return cluster;
  }

  broker(id: number): BrokerProcess {
    return this.brokers.get(id)!;
  }

  bootstrap(): string {
    return [...this.brokers.values()].map((b) => b.bootstrap).join(',');
  }

  async partitionState(topic: string, partition: number) {
    return (await this.kafkaZk.getPartitionState(topic, partition))?.state ?? null;
  }

  async controllerId(): Promise<number | null> {
    return this.kafkaZk.getControllerId();
  }

  /**
   * Kills every broker and ZooKeeper node and removes the directory. Each step runs whatever happened
   * before it (a broker already dead or dying, a paused process, a failed close): ZooKeeper is always
   * killed, and the first error is thrown only after everything is down.
   */
  async stop(): Promise<void> {
    const errors: unknown[] = [];
    const step = async (what: string, f: () => unknown): Promise<void> => {
      try {
        await f();
      } catch (err) {
        errors.push(new Error(`ProcessCluster.stop: ${what}: ${(err as Error).message}`, { cause: err }));
      }
    };
    await step('closing the ZooKeeper client', () => this.#zk?.close());
    for (const [id, b] of this.brokers) {
      // resume() throws if the process died since isRunning(); the kill must still happen.
      await step(`resuming broker ${id}`, () => b.isRunning() && b.resume());
      await step(`killing broker ${id}`, () => b.kill());
    }
    for (const n of this.ensemble.nodes) await step(`resuming ${n.name}`, () => n.isRunning() && n.resume());
    await step('killing ZooKeeper', () => this.ensemble.kill());
    if (!process.env.KEEP_TEST_DIRS) await step(`removing ${this.dir}`, () => rmSync(this.dir, { recursive: true, force: true }));
    if (errors.length > 0) throw errors[0];
  }
}
