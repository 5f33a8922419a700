import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePorts } from '@gregor/launcher';
import { BrokerProcess } from '../support/broker-process.js';
import { startZooKeeper, waitFor, type TestZooKeeper } from '../support/in-process-cluster.js';

/** `http.auth.token` in server.properties protects every HTTP admin write of a `gregor broker` process. */
describe('HTTP admin bearer token from the broker configuration', () => {
  let zk: TestZooKeeper;
  let dir: string;
  let broker: BrokerProcess;
  let http: number;
  beforeAll(async () => {
    zk = await startZooKeeper();
    dir = mkdtempSync(join(tmpdir(), 'gregor-auth-'));
    const [kafkaPort, httpPort] = await freePorts(2);
    http = httpPort!;
    broker = new BrokerProcess({
      brokerId: 1,
      port: kafkaPort!,
      dir,
      zookeeperConnect: zk.connectString,
      props: { 'http.port': String(http), 'http.auth.token': 's3cret' },
    });
    await broker.start();
    await waitFor(async () => (await fetch(`http://127.0.0.1:${http}/healthz`)).ok, 20_000, 'healthz');
  });
  afterAll(async () => {
    await broker?.kill();
    await zk?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  const create = (headers: Record<string, string>) =>
    fetch(`http://127.0.0.1:${http}/v1/topics`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ name: 'guarded', partitions: 1, replicationFactor: 1 }),
    });

  it('refuses writes without the token (401) or with a wrong one (403), accepts the right one; reads stay open', async () => {
    expect((await create({})).status).toBe(401);
    expect((await create({ authorization: 'Bearer nope' })).status).toBe(403);
    expect((await create({ authorization: 'Bearer s3cret' })).status).toBe(201);
    expect((await fetch(`http://127.0.0.1:${http}/v1/topics/guarded`)).status).toBe(200);
  });
});
