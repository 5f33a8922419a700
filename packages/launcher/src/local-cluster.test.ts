import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from './free-port.js';
import { LocalCluster } from './local-cluster.js';
import { killAllManagedProcesses } from './managed-process.js';

const root = fileURLToPath(new URL('../../../', import.meta.url));
const cliMain = join(root, 'packages/cli/dist/main.js');
const dir = mkdtempSync(join(tmpdir(), 'gregor-local-cluster-'));
let cluster: LocalCluster;

beforeAll(async () => {
  if (!existsSync(cliMain)) execFileSync('npx', ['tsc', '-b'], { cwd: root, stdio: 'inherit', timeout: 240_000 });
  const [zkClient, zkPeer, zkElection, kafka, http] = await freePorts(5);
  cluster = new LocalCluster({
    dir,
    spec: {
      zookeeper: { nodes: [{ clientPort: zkClient!, peerPort: zkPeer!, electionPort: zkElection! }], tickTime: 500 },
      brokers: [{ id: 5, host: '127.0.0.1', port: kafka!, httpPort: http!, properties: { 'zookeeper.session.timeout.ms': '2000' } }],
      properties: {},
    },
    gregorCommand: [process.execPath, cliMain],
    readyTimeoutMs: 60_000,
    brokerStopGraceMs: 15_000,
  });
}, 300_000);

afterAll(async () => {
  await killAllManagedProcesses();
  rmSync(dir, { recursive: true, force: true });
});

describe('LocalCluster (1 ZooKeeper node, 1 broker, real processes)', () => {
  it('starts, reports, pauses, restarts single nodes and stops', async () => {
    expect(await cluster.up()).toEqual(['zk-1', 'broker-5']);
    expect(readFileSync(join(dir, 'broker-5', 'server.properties'), 'utf8')).toContain('broker.id=5');
    expect(LocalCluster.exists(dir)).toBe(true);

    let status = await cluster.status();
    expect(status.controllerId).toBe(5);
    expect(status.nodes.map((n) => [n.name, n.running])).toEqual([['zk-1', true], ['broker-5', true]]);
    expect(status.nodes[0]!.zkMode).toBe('standalone');
    expect(status.nodes[1]).toMatchObject({ registered: true, answers: true, controller: true });

    // A second handle on the folder re-attaches to the running processes and starts nothing.
    const again = LocalCluster.open(dir);
    expect(again.brokers[0]!.pid).toBe(cluster.brokers[0]!.pid);
    expect(await again.up()).toEqual([]);

    cluster.pauseNode('broker-5');
    expect(await cluster.broker(5).answers(500)).toBe(false);
    cluster.resumeNode('broker-5');
    expect(await cluster.broker(5).answers(2000)).toBe(true);

    await cluster.killNode('broker-5');
    expect(cluster.broker(5).isRunning()).toBe(false);
    await cluster.startNode('broker-5'); // waits out the stale registration, then for the new one
    expect(await cluster.isRegistered(5)).toBe(true);

    expect(() => cluster.node('broker-9')).toThrow(/no broker 9/);
    expect(() => cluster.node('kafka-1')).toThrow(/unknown node/);

    await cluster.down();
    status = await cluster.status();
    expect(status.nodes.every((n) => !n.running)).toBe(true);
    expect(status.zookeeperServing).toBe(false);
  }, 180_000);

  it('fails with the log tail when a broker cannot start', async () => {
    const broken = await LocalCluster.onFreePorts({
      dir: join(dir, 'broken'),
      brokers: 1,
      http: false,
      brokerProperties: () => ({ 'num.partitions': 'many' }),
      readyTimeoutMs: 30_000,
    });
    expect(broken.spec.brokers[0]).toMatchObject({ id: 1, httpPort: -1 });
    try {
      await expect(broken.up()).rejects.toThrow(/broker-1 exited before serving[\s\S]*num\.partitions/);
    } finally {
      await broken.kill();
    }
  }, 120_000);
});
