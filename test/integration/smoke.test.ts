import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

describe('smoke: one broker, kcat', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1);
  });
  afterAll(async () => {
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it('kcat -L lists the broker', async () => {
    const r = await kcat(['-b', broker.bootstrap, '-L', '-J']);
    expect(r.code, r.stderr).toBe(0);
    const md = JSON.parse(r.stdout.toString());
    expect(md.brokers).toEqual([{ id: 1, name: broker.bootstrap }]);
  });

  it('kcat produces and consumes', async () => {
    const lines = Array.from({ length: 100 }, (_, i) => `k${i}:value-${i}`).join('\n') + '\n';
    const p = await kcat(['-b', broker.bootstrap, '-P', '-t', 'smoke', '-K:'], lines);
    expect(p.code, p.stderr).toBe(0);
    const c = await kcat(['-b', broker.bootstrap, '-C', '-t', 'smoke', '-e', '-q', '-f', '%k:%s\n']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.toString()).toBe(lines);
  });
});
