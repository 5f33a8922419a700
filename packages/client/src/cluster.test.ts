import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfigError, ErrorCode } from '@gregor/common';
import { Metadata } from '@gregor/protocol';
import { FakeCluster } from '../test/fake-cluster.js';
import { KafkaClient } from './cluster.js';
import { parseBrokerList } from './config.js';
import { ClientClosedError } from '@gregor/net';

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function start(nodeIds = [1, 2, 3]): Promise<FakeCluster> {
  const cluster = await FakeCluster.start(nodeIds);
  cleanup.push(() => cluster.close());
  return cluster;
}

function client(brokers: string): KafkaClient {
  const c = new KafkaClient({ brokers, clientId: 'cluster-test', retryBackoffMs: 5, retryBackoffMaxMs: 20 });
  cleanup.push(() => c.close());
  return c;
}

async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as net.AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('broker lists', () => {
  it('parses bootstrap.servers', () => {
    expect(parseBrokerList('a:9092, b:9093,[::1]:9094')).toEqual([
      { host: 'a', port: 9092 },
      { host: 'b', port: 9093 },
      { host: '::1', port: 9094 },
    ]);
    expect(() => parseBrokerList('')).toThrow(ConfigError);
    expect(() => parseBrokerList('nohost')).toThrow(ConfigError);
    expect(() => parseBrokerList('a:70000')).toThrow(ConfigError);
  });
});

describe('KafkaClient', () => {
  it('bootstraps and caches brokers, controller, cluster id and partitions', async () => {
    const cluster = await start();
    cluster.controllerId = 2;
    cluster.addTopic('orders', [1, 2, 3, 1]);
    const c = client(cluster.bootstrap);
    const metadata = await c.connect();
    expect(metadata.brokers.map((b) => b.nodeId).sort()).toEqual([1, 2, 3]);
    expect(c.controllerId).toBe(2);
    expect(c.clusterId).toBe('fake-cluster');
    expect(c.topic('orders')!.partitions.map((p) => p.leader)).toEqual([1, 2, 3, 1]);
    expect(c.topic('orders')!.partitions[3]).toMatchObject({ partition: 3, leaderEpoch: 0, replicas: [1], isr: [1] });
    expect(await c.leaderFor('orders', 2)).toBe(3);
    const controller = await c.controller();
    expect(controller.port).toBe(cluster.broker(2).port);
  });

  it('skips unreachable bootstrap brokers', async () => {
    const cluster = await start([1]);
    const c = client(`127.0.0.1:${await deadPort()},${cluster.bootstrap}`);
    await expect(c.connect()).resolves.toMatchObject({ controllerId: 1 });
  });

  it('pools one connection per broker and replaces a failed one', async () => {
    const cluster = await start([1, 2]);
    const c = client(cluster.bootstrap);
    await c.connect();
    const first = await c.connectionTo(1);
    expect(await c.connectionTo(1)).toBe(first);
    cluster.broker(1).dropConnections();
    await first.closed;
    const second = await c.connectionTo(1);
    expect(second).not.toBe(first);
    expect(second.isReady).toBe(true);
  });

  it('refreshes one topic on demand and forgets deleted topics', async () => {
    const cluster = await start([1]);
    const c = client(cluster.bootstrap);
    await c.connect();
    await expect(c.leaderFor('late', 0)).rejects.toMatchObject({ code: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, retriable: true });
    cluster.addTopic('late', [1]);
    expect(await c.leaderFor('late', 0)).toBe(1);
    const requests = cluster.broker(1).requestsOf(Metadata);
    expect(requests[requests.length - 1]!.body).toMatchObject({ topics: [{ name: 'late' }] });
    cluster.topics.delete('late');
    await c.refreshMetadata(['late']);
    expect(c.topic('late')).toBeUndefined();
  });

  it('reports a partition without a leader as LEADER_NOT_AVAILABLE', async () => {
    const cluster = await start([1]);
    cluster.addTopic('t', [-1]);
    const c = client(cluster.bootstrap);
    await c.connect();
    await expect(c.leaderFor('t', 0)).rejects.toMatchObject({ code: ErrorCode.LEADER_NOT_AVAILABLE });
  });

  it('fails metadata with a retriable error when no broker answers', async () => {
    const c = new KafkaClient({ brokers: `127.0.0.1:${await deadPort()}`, retries: 1, retryBackoffMs: 1, retryBackoffMaxMs: 1 });
    await expect(c.connect()).rejects.toMatchObject({ code: ErrorCode.NETWORK_EXCEPTION });
    await c.close();
    await expect(c.refreshMetadata()).rejects.toBeInstanceOf(ClientClosedError);
  });
});
