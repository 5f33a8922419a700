import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TimeoutError } from '@gregor/common';
import { startTestZooKeeper, type TestZooKeeper } from './test-zookeeper.js';
import { ZkError, ZkErrorCode } from './zk-errors.js';
import type { ZkClient } from './zk-client.js';
import type { ZkWatchEvent } from './zk-types.js';

let zk: TestZooKeeper;
let client: ZkClient;
beforeAll(async () => {
  zk = await startTestZooKeeper();
  client = await zk.client();
});
afterAll(async () => {
  await zk?.stop();
});

async function zkCodeOf(promise: Promise<unknown>): Promise<number | undefined> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ZkError) return error.zkCode;
    throw error;
  }
  return undefined;
}

describe('ZkClient', () => {
  it('creates, reads, updates and deletes with typed errors', async () => {
    expect(await client.create('/crud', 'hello')).toBe('/crud');
    const { data, stat } = await client.getData('/crud');
    expect(data.toString()).toBe('hello');
    expect(stat.version).toBe(0);
    expect(stat.czxid).toBeGreaterThan(0n);
    expect(stat.ephemeralOwner).toBe(0n);
    expect(await zkCodeOf(client.create('/crud', 'again'))).toBe(ZkErrorCode.NODE_EXISTS);
    expect(await client.createIfAbsent('/crud')).toBe(false);
    expect(await zkCodeOf(client.getData('/missing'))).toBe(ZkErrorCode.NO_NODE);
    expect(await client.getDataOrNull('/missing')).toBeNull();
    expect(await client.exists('/missing')).toBeNull();

    const updated = await client.setData('/crud', 'v1', 0);
    expect(updated.version).toBe(1);
    expect(await zkCodeOf(client.setData('/crud', 'stale', 0))).toBe(ZkErrorCode.BAD_VERSION);
    await client.create('/crud/child');
    expect(await zkCodeOf(client.delete('/crud'))).toBe(ZkErrorCode.NOT_EMPTY);
    expect(await client.getChildren('/crud')).toEqual(['child']);
    await client.delete('/crud/child', 0);
    expect(await zkCodeOf(client.delete('/crud', 0))).toBe(ZkErrorCode.BAD_VERSION);
    await client.delete('/crud', 1);
    expect(await client.exists('/crud')).toBeNull();

    const error = await client.getData('/missing').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ZkError);
    expect((error as ZkError).path).toBe('/missing');
  });

  it('mkdirp, sequential and ephemeral nodes', async () => {
    await client.mkdirp('/a/b/c');
    await client.mkdirp('/a/b/c');
    expect(await client.exists('/a/b/c')).not.toBeNull();
    const seq = await client.create('/a/item_', 'x', 'persistent_sequential');
    expect(seq).toMatch(/^\/a\/item_\d{10}$/);
    const other = await zk.client();
    await other.create('/eph', null, 'ephemeral');
    expect((await client.exists('/eph'))!.ephemeralOwner).toBe(BigInt(`0x${other.sessionId}`));
    await other.close();
    expect(await client.exists('/eph')).toBeNull();
  });

  it('deleteRecursive removes any depth', async () => {
    for (const p of ['/deep/1/2/3/4/5', '/deep/1/x/y', '/deep/z']) await client.mkdirp(p);
    await client.setData('/deep/1/2/3', 'data');
    await client.deleteRecursive('/deep');
    expect(await client.exists('/deep')).toBeNull();
    await client.deleteRecursive('/deep'); // gone already: fine
  });

  it('multi is atomic and honours version 0 (library defect 1)', async () => {
    await client.create('/m', '0');
    // the node is at version 0: a check on 0 passes
    const results = await client.multi([
      { type: 'check', path: '/m', version: 0 },
      { type: 'setData', path: '/m', data: '1', version: 0 },
      { type: 'create', path: '/m/a', data: 'x' },
    ]);
    expect(results[0]).toEqual({ type: 'check' });
    expect(results[1]).toMatchObject({ type: 'setData', stat: { version: 1 } });
    expect(results[2]).toEqual({ type: 'create', path: '/m/a' });

    // now at version 1: a stale version 0 must fail (the library alone would send -1 and pass)
    for (const op of [
      { type: 'check', path: '/m', version: 0 },
      { type: 'setData', path: '/m', data: 'stale', version: 0 },
      { type: 'delete', path: '/m/a', version: 5 },
    ] as const) {
      const error = (await client.multi([{ type: 'create', path: '/m/b' }, op]).catch((e: unknown) => e)) as ZkError;
      expect(error).toBeInstanceOf(ZkError);
      expect(error.zkCode).toBe(ZkErrorCode.BAD_VERSION);
      expect(error.opIndex).toBe(1);
      expect(await client.exists('/m/b')).toBeNull(); // nothing of the multi applied
    }
    expect((await client.getData('/m')).data.toString()).toBe('1');
    // version -1 still means any
    await client.multi([{ type: 'setData', path: '/m', data: '2', version: -1 }]);
    expect((await client.getData('/m')).stat.version).toBe(2);
  });

  it('watchers fire once, and a throwing watcher does not crash the process', async () => {
    await client.create('/w', 'a');
    const events: ZkWatchEvent[] = [];
    await client.getData('/w', (e) => {
      events.push(e);
      throw new Error('watcher bug');
    });
    await client.getChildren('/w', (e) => {
      events.push(e);
      return Promise.reject(new Error('async watcher bug'));
    });
    await client.exists('/w/new', (e) => void events.push(e));
    await client.setData('/w', 'b');
    await client.create('/w/new');
    await client.setData('/w', 'c'); // the data watch was one-shot
    await new Promise((r) => setTimeout(r, 200));
    expect(events).toEqual(
      expect.arrayContaining([
        { type: 'dataChanged', path: '/w' },
        { type: 'childrenChanged', path: '/w' },
        { type: 'created', path: '/w/new' },
      ]),
    );
    expect(events).toHaveLength(3);
  });

  it('times out operations against a hung server, and fails at once after close', async () => {
    const c = await zk.client({ operationTimeoutMs: 300, sessionTimeoutMs: 6000 });
    zk.node.pause();
    try {
      await expect(c.exists('/')).rejects.toBeInstanceOf(TimeoutError);
    } finally {
      zk.node.resume();
    }
    c.abandon();
    expect(await zkCodeOf(c.exists('/'))).toBe(ZkErrorCode.CONNECTION_LOSS);
  });
});
