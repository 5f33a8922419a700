import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts, LocalCluster } from '@gregor/launcher';
import { ensureBuilt, gregor as runGregor, ok as okGregor, type Run } from './gregor-process.js';

// The real `gregor` CLI, compiled, against a real local cluster (1 ZooKeeper node, 2 brokers) on free ports.
const dir = mkdtempSync(join(tmpdir(), 'gregor-cli-'));
const clusterDir = join(dir, 'cluster');
let bootstrap = '';

// Run in `dir`, where cluster.yaml is.
const gregor = (args: string[], options: { input?: string; timeoutMs?: number } = {}): Promise<Run> => runGregor(args, { ...options, cwd: dir });
const ok = (args: string[], options: { input?: string; timeoutMs?: number } = {}): Promise<Run> => okGregor(args, { ...options, cwd: dir });

interface StatusNode {
  name: string;
  running: boolean;
  registered?: boolean | null;
  answers?: boolean;
}

async function status(): Promise<{ controllerId: number | null; nodes: StatusNode[] }> {
  return JSON.parse((await ok(['cluster', 'status', '--dir', clusterDir, '--json'])).stdout);
}

beforeAll(async () => {
  ensureBuilt();
  const [zkClient, zkPeer, zkElection, k1, k2, h1, h2] = await freePorts(7);
  bootstrap = `127.0.0.1:${k1}`;
  writeFileSync(
    join(dir, 'cluster.yaml'),
    `zookeeper:
  nodes:
    - { clientPort: ${zkClient}, peerPort: ${zkPeer}, electionPort: ${zkElection} }
  tickTime: 500
properties:
  zookeeper.session.timeout.ms: 2000
brokers:
  - { id: 1, port: ${k1}, httpPort: ${h1} }
  - { id: 2, port: ${k2}, httpPort: ${h2} }
`,
  );
}, 300_000);

afterAll(async () => {
  // The CLI starts nodes detached: whatever a failed test left running is killed here.
  if (LocalCluster.exists(clusterDir)) await LocalCluster.open(clusterDir).kill().catch(() => undefined);
  rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('gregor CLI against a local cluster', () => {
  it('cluster up --detach, topics, produce and consume 1000 keyed lines, kill and restart a broker, down', async () => {
    const up = await ok(['cluster', 'up', '--detach', '--config', 'cluster.yaml', '--dir', clusterDir, '--timeout-ms', '60000'], { timeoutMs: 90_000 });
    expect(up.stderr).toContain('started zk-1, broker-1, broker-2');
    expect(up.stdout).toContain(`bootstrap servers: ${bootstrap}`);
    let s = await status();
    expect(s.nodes.map((n) => [n.name, n.running, n.registered ?? null])).toEqual([
      ['zk-1', true, null],
      ['broker-1', true, true],
      ['broker-2', true, true],
    ]);
    expect([1, 2]).toContain(s.controllerId);

    const b = ['--bootstrap-server', bootstrap];
    expect((await ok(['topics', 'create', '--topic', 'events', '--partitions', '3', '--replication-factor', '2', '--config', 'retention.ms=3600000', ...b])).stdout).toContain('Created topic events.');
    expect((await gregor(['topics', 'create', '--topic', 'events', '--partitions', '3', '--replication-factor', '2', ...b])).code).toBe(1);
    expect((await ok(['topics', 'create', '--topic', 'events', '--partitions', '3', '--if-not-exists', ...b])).code).toBe(0);
    expect((await ok(['topics', 'list', ...b])).stdout.split('\n')).toContain('events');
    const described = (await ok(['topics', 'describe', '--topic', 'events', ...b])).stdout;
    expect(described).toContain('Topic: events\tPartitionCount: 3\tReplicationFactor: 2');
    expect(described.match(/\tPartition: \d\tLeader: [12]\tReplicas: [12],[12]\tIsr: /g)).toHaveLength(3);

    const lines = Array.from({ length: 1000 }, (_, i) => `key-${i % 50}:value-${i}`);
    const produced = await ok(['produce', '--topic', 'events', '--key-separator', ':', ...b], { input: `${lines.join('\n')}\n` });
    expect(produced.stderr).toMatch(/1000 records in/);

    const text = await ok(['consume', '--topic', 'events', '--from-beginning', '--max', '1000', '--print-key', '--key-separator', ':', ...b]);
    expect(text.stdout.trimEnd().split('\n').sort()).toEqual([...lines].sort());
    expect(text.stderr).toContain('Processed a total of 1000 messages');

    const json = await ok(['consume', '--topic', 'events', '--from-beginning', '--max', '1000', '--format', 'json', ...b]);
    const records = json.stdout.trimEnd().split('\n').map((l) => JSON.parse(l) as { partition: number; offset: number; key: string; value: string });
    expect(records).toHaveLength(1000);
    const partitionOfKey = new Map<string, number>();
    const lastOffset = new Map<number, number>();
    for (const r of records) {
      // One key always lands in one partition, and each partition is read in offset order.
      expect(partitionOfKey.get(r.key) ?? r.partition).toBe(r.partition);
      partitionOfKey.set(r.key, r.partition);
      expect(r.offset).toBeGreaterThan(lastOffset.get(r.partition) ?? -1);
      lastOffset.set(r.partition, r.offset);
    }
    // Records of one key keep the order they were produced in.
    const ofKey7 = records.filter((r) => r.key === 'key-7').map((r) => Number(r.value.slice('value-'.length)));
    expect(ofKey7).toEqual([...ofKey7].sort((x, y) => x - y));

    const idle = await ok(['consume', '--topic', 'events', '--timeout-ms', '1500', ...b], { timeoutMs: 20_000 });
    expect(idle.stdout).toBe('');
    expect(idle.stderr).toContain('Processed a total of 0 messages');

    await ok(['cluster', 'kill', 'broker-2', '--dir', clusterDir]);
    s = await status();
    expect(s.nodes.find((n) => n.name === 'broker-2')!.running).toBe(false);
    expect(s.nodes.find((n) => n.name === 'broker-1')!.running).toBe(true);

    const again = await ok(['cluster', 'up', '--detach', '--dir', clusterDir, '--timeout-ms', '60000'], { timeoutMs: 90_000 });
    expect(again.stderr).toContain('started broker-2');
    expect(again.stderr).not.toContain('starting broker-1');
    expect(again.stderr).not.toContain('starting ZooKeeper');
    s = await status();
    expect(s.nodes.every((n) => n.running)).toBe(true);
    expect(s.nodes.filter((n) => n.name.startsWith('broker')).every((n) => n.registered && n.answers)).toBe(true);

    // Nothing was lost with broker-2's crash: every record is still there.
    const after = await ok(['consume', '--topic', 'events', '--from-beginning', '--max', '1000', ...b]);
    expect(after.stdout.trimEnd().split('\n'), after.stderr).toHaveLength(1000);

    const down = await ok(['cluster', 'down', '--dir', clusterDir], { timeoutMs: 90_000 });
    expect(down.stderr).toContain('cluster stopped');
    s = await status();
    expect(s.nodes.every((n) => !n.running)).toBe(true);
  }, 300_000);
});
