import { appendFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { KafkaClient, Producer } from '@gregor/client';
import { freePort } from '@gregor/launcher';
import { BrokerProcess } from '../support/broker-process.js';
import { startZooKeeper, waitFor, type TestZooKeeper } from '../support/in-process-cluster.js';
import { kcat } from '../support/kcat.js';

/** A broker process stopped cleanly, killed with SIGKILL mid-write, and restarted on a corrupted log. */
describe('broker restarts keep the data', () => {
  let zk: TestZooKeeper;
  let dir: string;
  let broker: BrokerProcess;
  beforeAll(async () => {
    zk = await startZooKeeper();
    dir = mkdtempSync(join(tmpdir(), 'gregor-restart-'));
    broker = new BrokerProcess({ brokerId: 1, port: await freePort(), dir, zookeeperConnect: zk.connectString, props: { 'num.partitions': '1' } });
    await broker.start();
  });
  afterAll(async () => {
    await broker?.kill();
    await zk?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const consumeAll = async (topic: string) => {
    const r = await kcat(['-b', broker.bootstrap, '-C', '-t', topic, '-e', '-q']);
    expect(r.code, r.stderr).toBe(0);
    return r.stdout.toString().split('\n').filter((l) => l !== '');
  };

  it('after a clean stop (SIGTERM) the clean-shutdown marker is written and everything is there', async () => {
    const lines = Array.from({ length: 10_000 }, (_, i) => `clean-${i}`);
    expect((await kcat(['-b', broker.bootstrap, '-P', '-t', 'clean'], lines.join('\n') + '\n')).code).toBe(0);
    await broker.stop();
    expect(broker.isRunning()).toBe(false);
    expect(readdirSync(join(broker.logDir))).toContain('.kafka_cleanshutdown');
    await broker.start();
    expect(await consumeAll('clean')).toEqual(lines);
  });

  it('after SIGKILL during a stream of acknowledged writes, every acknowledged record is read back', async () => {
    const client = new KafkaClient({ brokers: [broker.bootstrap], clientId: 'restart-test' });
    expect((await kcat(['-b', broker.bootstrap, '-P', '-t', 'killed'], 'first\n')).code).toBe(0);
    const producer = new Producer(client, { acks: 1, retries: 2, deliveryTimeoutMs: 3000 });
    const acked: string[] = [];
    let stop = false;
    const writer = (async () => {
      for (let i = 0; !stop && i < 100_000; i++) {
        const values = Array.from({ length: 50 }, (_, j) => `kill-${i}-${j}`);
        try {
          await producer.send({ topic: 'killed', messages: values.map((v) => ({ key: null, value: Buffer.from(v) })) });
          acked.push(...values);
        } catch {
          return; // the broker is gone
        }
      }
    })();
    await waitFor(() => acked.length >= 5000, 20_000, 'acknowledged writes');
    await broker.kill();
    stop = true;
    await writer;
    await client.close();
    await broker.start();
    const read = new Set(await consumeAll('killed'));
    const missing = acked.filter((v) => !read.has(v));
    expect(missing).toEqual([]);
    // And the broker takes writes again.
    expect((await kcat(['-b', broker.bootstrap, '-P', '-t', 'killed'], 'after-restart\n')).code).toBe(0);
    expect((await consumeAll('killed')).at(-1)).toBe('after-restart');
  });

  it('a corrupt tail is truncated at startup with a log line, and appends continue at the right offset', async () => {
    const lines = Array.from({ length: 1000 }, (_, i) => `tail-${i}`);
    expect((await kcat(['-b', broker.bootstrap, '-P', '-t', 'torn'], lines.join('\n') + '\n')).code).toBe(0);
    await broker.kill();
    const partitionDir = join(broker.logDir, 'torn-0');
    const segment = readdirSync(partitionDir).find((f) => f.endsWith('.log'))!;
    // A torn write: half of a batch header and garbage after the last good batch.
    appendFileSync(join(partitionDir, segment), Buffer.concat([Buffer.from([0, 0, 0, 0, 0, 0, 3, 232, 0, 0, 1, 0]), Buffer.alloc(300, 0xab)]));
    await broker.start();
    expect(await consumeAll('torn')).toEqual(lines);
    const log = readFileSync(broker.logFile, 'utf8');
    expect(log).toMatch(/"topic":"torn".*truncat|truncat.*"topic":"torn"/i);
    expect((await kcat(['-b', broker.bootstrap, '-P', '-t', 'torn'], 'next\n')).code).toBe(0);
    const offsets = await kcat(['-b', broker.bootstrap, '-C', '-t', 'torn', '-o', '-1', '-e', '-q', '-f', '%o %s\n']);
    expect(offsets.stdout.toString()).toBe('1000 next\n');
  });
});
