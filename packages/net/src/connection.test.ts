import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { ErrorCode, TimeoutError, deferred } from '@gregor/common';
import { ApiVersions, Metadata, Produce, encodeApiVersionsUnsupportedVersion, encodeResponseFrame, type MetadataRequest, type MetadataResponse } from '@gregor/protocol';
import { FakeBroker, NO_RESPONSE, RawResponse } from '../../client/test/fake-broker.js';
import { Connection } from './connection.js';
import { NetworkError, NoCommonVersionError } from './errors.js';

/** Metadata answer echoing the first requested topic name, so each response can be told apart. */
function echo(body: MetadataRequest): MetadataResponse {
  return { brokers: [], controllerId: 1, clusterId: 'c', topics: (body.topics ?? []).map((t) => ({ errorCode: 3, name: t.name, partitions: [] })) };
}

function activeTimers(): number {
  return process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
}

const cleanup: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  for (const fn of cleanup.splice(0).reverse()) await fn();
});

async function setup(broker: FakeBroker, options: Partial<ConstructorParameters<typeof Connection>[0]> = {}): Promise<Connection> {
  cleanup.push(() => broker.close());
  const connection = new Connection({ host: broker.host, port: broker.port, clientId: 'test-client', ...options });
  cleanup.push(() => connection.close());
  await connection.connect();
  return connection;
}

describe('Connection', () => {
  it('negotiates versions with ApiVersions and sends at min(our max, broker max)', async () => {
    const broker = await FakeBroker.start({ apis: [Metadata], advertise: new Map([[Metadata.apiKey, { minVersion: 0, maxVersion: 5 }]]) });
    broker.on(Metadata, echo);
    const connection = await setup(broker);
    expect(connection.apiVersions.get(Metadata.apiKey)).toEqual({ minVersion: 0, maxVersion: 5 });
    const response = await connection.send(Metadata, { topics: [{ name: 'a' }] });
    expect(response.topics[0]!.name).toBe('a');
    const [apiVersions, metadata] = broker.received;
    expect(apiVersions!.header).toMatchObject({ apiKey: ApiVersions.apiKey, apiVersion: 2, clientId: 'test-client' });
    expect(metadata!.header).toMatchObject({ apiKey: Metadata.apiKey, apiVersion: Math.min(5, Metadata.maxVersion), clientId: 'test-client' });
    await connection.send(Metadata, { topics: [] }, { version: 1 });
    expect(broker.received[2]!.header.apiVersion).toBe(1);
  });

  it('refuses an API the broker lacks or whose versions do not overlap', async () => {
    const broker = await FakeBroker.start({ apis: [Metadata], advertise: new Map([[Metadata.apiKey, { minVersion: 50, maxVersion: 60 }]]) });
    const connection = await setup(broker);
    await expect(connection.send(Metadata, { topics: null })).rejects.toBeInstanceOf(NoCommonVersionError);
    await expect(connection.send(Produce, { transactionalId: null, acks: 1, timeoutMs: 100, topicData: [] })).rejects.toThrow(/does not support Produce/);
    expect(() => connection.versionFor(ApiVersions, 99)).toThrow(NoCommonVersionError);
    expect(connection.isReady).toBe(true);
  });

  it('pipelines requests: many in flight, each resolved with its own response', async () => {
    const broker = await FakeBroker.start({ apis: [Metadata] });
    const held: { body: MetadataRequest; answer: ReturnType<typeof deferred<MetadataResponse>> }[] = [];
    const allArrived = deferred<void>();
    broker.on(Metadata, (body: MetadataRequest) => {
      const answer = deferred<MetadataResponse>();
      held.push({ body, answer });
      if (held.length === 5) allArrived.resolve();
      return answer.promise;
    });
    const connection = await setup(broker);
    const sent = ['t0', 't1', 't2', 't3', 't4'].map((name) => connection.send(Metadata, { topics: [{ name }] }));
    await allArrived.promise;
    expect(connection.inFlightCount).toBe(5);
    // The server finishes the work out of order; the wire order stays the request order.
    for (const i of [3, 1, 4, 0, 2]) held[i]!.answer.resolve(echo(held[i]!.body));
    const responses = await Promise.all(sent);
    expect(responses.map((r) => r.topics[0]!.name)).toEqual(['t0', 't1', 't2', 't3', 't4']);
    const ids = broker.requestsOf(Metadata).map((r) => r.header.correlationId);
    expect(new Set(ids).size).toBe(5);
    expect(connection.inFlightCount).toBe(0);
  });

  it('rejects every in-flight request with a retriable network error when the socket drops', async () => {
    const broker = await FakeBroker.start({ apis: [Metadata] });
    const arrived = deferred<void>();
    broker.on(Metadata, () => {
      if (broker.requestsOf(Metadata).length === 3) arrived.resolve();
      return NO_RESPONSE;
    });
    const connection = await setup(broker);
    const timersBefore = activeTimers();
    const sent = [1, 2, 3].map(() => connection.send(Metadata, { topics: null }).then(() => 'resolved', (e: unknown) => e));
    await arrived.promise;
    broker.dropConnections();
    const outcomes = await Promise.all(sent);
    for (const error of outcomes) {
      expect(error).toBeInstanceOf(NetworkError);
      expect(error).toMatchObject({ code: ErrorCode.NETWORK_EXCEPTION, retriable: true });
    }
    expect(connection.isClosed).toBe(true);
    expect(await connection.closed).toBeInstanceOf(NetworkError);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
    await expect(connection.send(Metadata, { topics: null })).rejects.toBeInstanceOf(NetworkError);
  });

  it('times a request out, leaves no timer behind and keeps the connection usable', async () => {
    const broker = await FakeBroker.start({ apis: [Metadata] });
    const late = deferred<MetadataResponse>();
    broker.on(Metadata, (body: MetadataRequest) => (body.topics?.[0]?.name === 'slow' ? late.promise : echo(body)));
    const connection = await setup(broker, { requestTimeoutMs: 5_000 });
    const timersBefore = activeTimers();
    const slow = connection.send(Metadata, { topics: [{ name: 'slow' }] }, { timeoutMs: 50 });
    await expect(slow).rejects.toBeInstanceOf(TimeoutError);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
    // A request behind the timed-out one: its response must not be confused with the late one.
    const next = connection.send(Metadata, { topics: [{ name: 'next' }] });
    late.resolve(echo({ topics: [{ name: 'slow' }] }));
    expect((await next).topics[0]!.name).toBe('next');
    expect(connection.isReady).toBe(true);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
  });

  it('sends requests that expect no response (acks=0) without waiting', async () => {
    const broker = await FakeBroker.start({ apis: [Metadata, Produce] });
    broker.on(Produce, () => NO_RESPONSE).on(Metadata, echo);
    const connection = await setup(broker);
    await connection.send(Produce, { transactionalId: null, acks: 0, timeoutMs: 1000, topicData: [] }, { expectResponse: false });
    expect(connection.inFlightCount).toBe(0);
    const response = await connection.send(Metadata, { topics: [{ name: 'after' }] });
    expect(response.topics[0]!.name).toBe('after');
    expect(broker.requestsOf(Produce)).toHaveLength(1);
  });

  it('fails the connect when the broker never answers ApiVersions', async () => {
    const broker = await FakeBroker.start({ apis: [] });
    broker.on(ApiVersions, () => NO_RESPONSE);
    cleanup.push(() => broker.close());
    const connection = new Connection({ host: broker.host, port: broker.port, connectTimeoutMs: 100 });
    const timersBefore = activeTimers();
    const started = Date.now();
    const error = await connection.connect().catch((e: unknown) => e);
    expect(error).toMatchObject({ retriable: true });
    expect(Date.now() - started).toBeLessThan(2000);
    expect(connection.isClosed).toBe(true);
    expect(activeTimers()).toBeLessThanOrEqual(timersBefore);
  });

  it('reports a refused connection as a retriable network error', async () => {
    const server = net.createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const connection = new Connection({ host: '127.0.0.1', port });
    await expect(connection.connect()).rejects.toMatchObject({ code: ErrorCode.NETWORK_EXCEPTION, retriable: true });
  });

  it('falls back to an older ApiVersions version when the broker answers UNSUPPORTED_VERSION', async () => {
    const broker = await FakeBroker.start({ apis: [Metadata] });
    broker.on(ApiVersions, (_body, request) =>
      request.header.apiVersion > 1 ? { errorCode: ErrorCode.UNSUPPORTED_VERSION, apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 1 }] } : broker.apiVersionsResponse(),
    );
    const connection = await setup(broker);
    expect(broker.requestsOf(ApiVersions).map((r) => r.header.apiVersion)).toEqual([2, 1]);
    expect(connection.apiVersions.has(Metadata.apiKey)).toBe(true);
  });

  it('understands the KIP-511 answer (a v0 body with UNSUPPORTED_VERSION) to a too-new ApiVersions', async () => {
    const broker = await FakeBroker.start({ apis: [Metadata] });
    broker.on(ApiVersions, (_body, request) =>
      request.header.apiVersion > 1 ? new RawResponse(encodeApiVersionsUnsupportedVersion(request.header.correlationId, 0, 1)) : broker.apiVersionsResponse(),
    );
    const connection = await setup(broker);
    expect(broker.requestsOf(ApiVersions).map((r) => r.header.apiVersion)).toEqual([2, 1]);
    expect(connection.versionFor(Metadata)).toBe(Metadata.maxVersion);
  });

  it('fails and closes the connection when ApiVersions answers another error', async () => {
    const broker = await FakeBroker.start({ apis: [] });
    broker.on(ApiVersions, () => ({ errorCode: ErrorCode.INVALID_REQUEST, apiKeys: [], throttleTimeMs: 0 }));
    cleanup.push(() => broker.close());
    const connection = new Connection({ host: broker.host, port: broker.port });
    await expect(connection.connect()).rejects.toMatchObject({ code: ErrorCode.INVALID_REQUEST });
    expect(connection.isClosed).toBe(true);
  });

  it('closes the connection when a response carries an unexpected correlation id', async () => {
    const broker = await FakeBroker.start({ apis: [Metadata] });
    broker.on(Metadata, (body: MetadataRequest, request) =>
      new RawResponse(encodeResponseFrame(Metadata.versions.get(request.header.apiVersion)!, request.header.correlationId + 1000, echo(body))),
    );
    const connection = await setup(broker);
    const error = await connection.send(Metadata, { topics: null }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(NetworkError);
    expect((error as Error).message).toMatch(/correlation id/);
    expect(connection.isClosed).toBe(true);
  });

  it('close() is idempotent and fails requests in flight', async () => {
    const broker = await FakeBroker.start({ apis: [Metadata] });
    broker.on(Metadata, () => NO_RESPONSE);
    const connection = await setup(broker);
    const pending = connection.send(Metadata, { topics: null });
    await Promise.all([connection.close(), connection.close()]);
    await expect(pending).rejects.toBeInstanceOf(NetworkError);
    await connection.close();
    expect(connection.isClosed).toBe(true);
  });
});
