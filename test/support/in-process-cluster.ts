// Test support: a real ZooKeeper (java process) and real brokers running inside the test process.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogger, silentLogger } from '@gregor/common';
import { buildBrokerConfig, KafkaServer } from '@gregor/broker';
import { freePort, ZooKeeperNode } from '@gregor/launcher';
import type { SegmentIo } from '@gregor/storage';

export interface TestZooKeeper {
  node: ZooKeeperNode;
  connectString: string;
  stop(): Promise<void>;
}

export async function startZooKeeper(): Promise<TestZooKeeper> {
  const dir = mkdtempSync(join(tmpdir(), 'gregor-it-zk-'));
  const node = new ZooKeeperNode({ id: 1, dir, clientPort: await freePort(), tickTime: 500, stopGraceMs: 3000 });
  await node.start();
  return {
    node,
    connectString: node.connectString,
    async stop() {
      if (node.isRunning()) node.resume();
      await node.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export interface TestBroker {
  server: KafkaServer;
  bootstrap: string;
  port: number;
  logDir: string;
  stop(): Promise<void>;
}

/** A broker on a free port with its own log dir; extra settings use Kafka's names. `segmentIo` wraps its segments' file calls. */
export async function startBroker(zk: TestZooKeeper, brokerId: number, props: Record<string, string> = {}, logDir?: string, options: { segmentIo?: SegmentIo } = {}): Promise<TestBroker> {
  const dir = logDir ?? mkdtempSync(join(tmpdir(), `gregor-it-broker-${brokerId}-`));
  const port = props.port ? Number(props.port) : await freePort();
  const { port: _ignored, ...rest } = props;
  const config = buildBrokerConfig(
    new Map(
      Object.entries({
        'broker.id': String(brokerId),
        listeners: `PLAINTEXT://127.0.0.1:${port}`,
        'log.dirs': dir,
        'zookeeper.connect': zk.connectString,
        'zookeeper.session.timeout.ms': '6000',
        'controlled.shutdown.retry.backoff.ms': '200',
        'http.port': '-1',
        ...rest,
      }),
    ),
  );
  const logger = process.env.TEST_LOG ? createLogger(`broker-${brokerId}`, { level: process.env.TEST_LOG }) : silentLogger();
  const server = new KafkaServer(config, { logger, ...options });
  await server.startup();
  return {
    server,
    bootstrap: `127.0.0.1:${port}`,
    port,
    logDir: dir,
    async stop() {
      await server.shutdown();
    },
  };
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/** Polls `check` until it returns a truthy value or the time is up. */
export async function waitFor<T>(check: () => T | Promise<T>, timeoutMs = 15_000, what = 'condition'): Promise<NonNullable<T>> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await check();
      if (v) return v as NonNullable<T>;
    } catch (err) {
      last = err;
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}${last ? `: ${(last as Error).message}` : ''}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}
