import { afterEach, describe, expect, it } from 'vitest';
import { Metadata, type MetadataResponse } from '@gregor/protocol';
import { FakeBroker } from '../../client/test/fake-broker.js';
import { ConnectionPool } from './connection-pool.js';
import { ClientClosedError, NetworkError } from './errors.js';

const answer = (): MetadataResponse => ({ brokers: [], controllerId: 1, clusterId: 'c', topics: [] });

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function broker(): Promise<FakeBroker> {
  const b = await FakeBroker.start({ apis: [Metadata] });
  b.on(Metadata, answer);
  cleanup.push(() => b.close());
  return b;
}

function pool(): ConnectionPool {
  const p = new ConnectionPool({ clientId: 'pool-test' });
  cleanup.push(() => p.close());
  return p;
}

describe('ConnectionPool', () => {
  it('reuses one connection per broker id, and one per bootstrap address', async () => {
    const b = await broker();
    const p = pool();
    const first = await p.connect(1, b);
    await first.send(Metadata, { topics: [] });
    expect(await p.connect(1, b)).toBe(first);
    expect(p.get(1, b)).toBe(first);
    const bootstrap = await p.connectByAddress(b);
    expect(bootstrap).not.toBe(first);
    expect(await p.connectByAddress(b)).toBe(bootstrap);
    expect(p.size).toBe(2);
    // Two sockets: ApiVersions once per connection.
    expect(b.requestsOf(Metadata)).toHaveLength(1);
    expect(b.received.filter((r) => r.header.apiKey === 18)).toHaveLength(2);
    expect(b.received[0]!.header.clientId).toBe('pool-test');
  });

  it('replaces a connection that failed, and one whose broker moved to another address', async () => {
    const a = await broker();
    const moved = await broker();
    const p = pool();
    const first = await p.connect(1, a);
    for (const s of a.sockets) s.destroy();
    await first.closed;
    expect(p.size).toBe(0);
    const second = await p.connect(1, a);
    expect(second).not.toBe(first);
    await second.send(Metadata, { topics: [] });

    const third = await p.connect(1, moved);
    expect(third).not.toBe(second);
    expect(third.port).toBe(moved.port);
    await second.closed;
    expect(second.isClosed).toBe(true);
  });

  it('retain closes the connections of brokers that left; close closes all and refuses new ones', async () => {
    const b = await broker();
    const p = pool();
    const one = await p.connect(1, b);
    const two = await p.connect(2, b);
    p.retain((id) => id !== 2);
    await two.closed;
    expect(one.isClosed).toBe(false);
    const pending = one.send(Metadata, { topics: [] }, { timeoutMs: 5_000 });
    await p.close();
    expect(one.isClosed).toBe(true);
    // Either answered before the close or failed by it; never left hanging.
    await pending.catch((error: unknown) => expect(error).toBeInstanceOf(NetworkError));
    expect(() => p.get(1, b)).toThrow(ClientClosedError);
    expect(p.size).toBe(0);
  });
});
