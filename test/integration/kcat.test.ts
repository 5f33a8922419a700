import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/** kcat 1.7.1 / librdkafka 2.0.2 against one gregor broker with a real ZooKeeper. */
describe('kcat (librdkafka) against one broker', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'num.partitions': '1' });
  });
  afterAll(async () => {
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it('-L shows the broker, the controller and topics with leaders and replicas', async () => {
    const p = await kcat(['-b', broker.bootstrap, '-P', '-t', 'listed'], 'x\n');
    expect(p.code, p.stderr).toBe(0);
    const r = await kcat(['-b', broker.bootstrap, '-L', '-J']);
    expect(r.code, r.stderr).toBe(0);
    const md = JSON.parse(r.stdout.toString());
    expect(md.brokers).toEqual([{ id: 1, name: broker.bootstrap }]);
    expect(md.controllerid).toBe(1);
    const t = md.topics.find((x: { topic: string }) => x.topic === 'listed');
    expect(t.partitions).toEqual([{ partition: 0, leader: 1, replicas: [{ id: 1 }], isrs: [{ id: 1 }] }]);
  });

  it('100k keyed lines with headers and gzip come back byte-exact and in order', async () => {
    const n = 100_000;
    const lines: string[] = [];
    for (let i = 0; i < n; i++) lines.push(`key-${i % 977}\t${i.toString(36)}-${'v'.repeat(i % 50)}-${i}`);
    const input = lines.join('\n') + '\n';
    const p = await kcat(
      ['-b', broker.bootstrap, '-P', '-t', 'big', '-K', '\t', '-z', 'gzip', '-H', 'source=gregor-test', '-H', 'n=1', '-X', 'linger.ms=20'],
      input,
      120_000,
    );
    expect(p.code, p.stderr).toBe(0);
    const c = await kcat(['-b', broker.bootstrap, '-C', '-t', 'big', '-o', 'beginning', '-e', '-q', '-f', '%k\t%s\n'], undefined, 120_000);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.length).toBe(Buffer.byteLength(input));
    expect(c.stdout.toString() === input).toBe(true);
    // Headers survive untouched, and offsets are dense.
    const h = await kcat(['-b', broker.bootstrap, '-C', '-t', 'big', '-o', '99998', '-e', '-q', '-f', '%o|%h|%k\n']);
    expect(h.stdout.toString()).toBe(`99998|source=gregor-test,n=1|key-${99998 % 977}\n99999|source=gregor-test,n=1|key-${99999 % 977}\n`);
  });

  it('-o offsets: absolute, relative from the end, and s@timestamp; -Q finds offsets by time', async () => {
    const first = Array.from({ length: 50 }, (_, i) => `a${i}`).join('\n') + '\n';
    expect((await kcat(['-b', broker.bootstrap, '-P', '-t', 'timed'], first)).code).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    const boundary = Date.now();
    await new Promise((r) => setTimeout(r, 50));
    const second = Array.from({ length: 50 }, (_, i) => `b${i}`).join('\n') + '\n';
    expect((await kcat(['-b', broker.bootstrap, '-P', '-t', 'timed'], second)).code).toBe(0);

    const abs = await kcat(['-b', broker.bootstrap, '-C', '-t', 'timed', '-o', '45', '-c', '10', '-q']);
    expect(abs.stdout.toString()).toBe(['a45', 'a46', 'a47', 'a48', 'a49', 'b0', 'b1', 'b2', 'b3', 'b4'].join('\n') + '\n');
    const tail = await kcat(['-b', broker.bootstrap, '-C', '-t', 'timed', '-o', '-3', '-e', '-q']);
    expect(tail.stdout.toString()).toBe('b47\nb48\nb49\n');
    const byTime = await kcat(['-b', broker.bootstrap, '-C', '-t', 'timed', '-o', `s@${boundary}`, '-c', '2', '-q']);
    expect(byTime.stdout.toString()).toBe('b0\nb1\n');
    const q = await kcat(['-b', broker.bootstrap, '-Q', '-t', `timed:0:${boundary}`]);
    expect(q.code, q.stderr).toBe(0);
    expect(q.stdout.toString()).toMatch(/timed \[0\]\s+offset 50\b/);
    const future = await kcat(['-b', broker.bootstrap, '-Q', '-t', `timed:0:${Date.now() + 3_600_000}`]);
    expect(future.stdout.toString()).toMatch(/offset -1\b/);
  });

  it('-e stops at the end of every partition, and a consumer waiting at the end sees new data', async () => {
    expect((await kcat(['-b', broker.bootstrap, '-P', '-t', 'tail'], 'one\n')).code).toBe(0);
    const ended = await kcat(['-b', broker.bootstrap, '-C', '-t', 'tail', '-e', '-q']);
    expect(ended.stdout.toString()).toBe('one\n');
    // Long-poll: a consumer parked at the end gets the next record without waiting out a timeout loop.
    const waiting = kcat(['-b', broker.bootstrap, '-C', '-t', 'tail', '-o', 'end', '-c', '1', '-q'], undefined, 30_000);
    await new Promise((r) => setTimeout(r, 1500));
    expect((await kcat(['-b', broker.bootstrap, '-P', '-t', 'tail'], 'two\n')).code).toBe(0);
    const got = await waiting;
    expect(got.stdout.toString()).toBe('two\n');
  });

  it('several partitions: keyed records keep per-key order', async () => {
    await broker.server.adminManager.createTopics(
      [{ name: 'multi', numPartitions: 4, replicationFactor: 1, assignments: null, configs: {} }],
      10_000,
      false,
    );
    await waitFor(() => broker.server.metadataCache.partitions('multi').length === 4);
    const lines = Array.from({ length: 2000 }, (_, i) => `k${i % 13}:${i}`).join('\n') + '\n';
    expect((await kcat(['-b', broker.bootstrap, '-P', '-t', 'multi', '-K:'], lines)).code).toBe(0);
    const c = await kcat(['-b', broker.bootstrap, '-C', '-t', 'multi', '-e', '-q', '-f', '%p %k %s\n']);
    const seen = new Map<string, number>();
    const partitionOfKey = new Map<string, number>();
    let count = 0;
    for (const line of c.stdout.toString().trim().split('\n')) {
      const [p, k, v] = line.split(' ') as [string, string, string];
      count++;
      expect(Number(v)).toBeGreaterThan(seen.get(k) ?? -1);
      seen.set(k, Number(v));
      if (partitionOfKey.has(k)) expect(partitionOfKey.get(k)).toBe(Number(p));
      partitionOfKey.set(k, Number(p));
    }
    expect(count).toBe(2000);
    expect(new Set(partitionOfKey.values()).size).toBeGreaterThan(1);
  });
});
