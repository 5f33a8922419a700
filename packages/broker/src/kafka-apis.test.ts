import { silentLogger } from '@gregor/common';
import { allApis, ApiKey, ApiVersions, decodeResponseFrame, encodeRequestFrame, supportedApiVersions } from '@gregor/protocol';
import { describe, expect, it } from 'vitest';
import type { BrokerServices } from './broker-services.js';
import { registerHandlers } from './handlers/index.js';
import { apiVersionsHandler } from './handlers/api-versions.js';
import { KafkaApis } from './kafka-apis.js';
import type { ConnectionInfo } from './network/socket-server.js';

/** Handler factories only capture their services; anything they reach for while registering is a stand-in. */
function standIn(): BrokerServices {
  const any: object = new Proxy(function () {}, { get: (_t, key) => (key === 'then' ? undefined : any), apply: () => any });
  return any as BrokerServices;
}

const conn: ConnectionInfo = { id: 1, listenerName: 'PLAINTEXT', remoteAddress: '127.0.0.1:1', clientHost: '127.0.0.1', securityProtocol: 'PLAINTEXT', principal: 'User:ANONYMOUS' };

describe('KafkaApis and the API table', () => {
  it('the broker has a handler for every API of protocol table and none besides', () => {
    const apis = new KafkaApis(silentLogger());
    registerHandlers(apis, standIn());
    expect(apis.unhandledApis()).toEqual([]);
    expect(apis.supportedApis()).toEqual(supportedApiVersions());
    expect(apis.supportedApis().map((a) => a.apiKey)).toEqual(allApis().map((a) => a.apiKey));
  });

  it('refuses a table API without a handler, and a second handler for one API', () => {
    const apis = new KafkaApis(silentLogger());
    apis.register(ApiKey.ApiVersions, apiVersionsHandler(standIn()));
    expect(apis.unhandledApis()).toContain('Produce');
    expect(() => apis.checkServesTable()).toThrow(/no handler for Produce, Fetch/);
    expect(() => apis.register(ApiKey.ApiVersions, apiVersionsHandler(standIn()))).toThrow(/already has a handler/);
  });

  it.each([0, 3])('answers ApiVersions v%i from the table', async (v) => {
    const apis = new KafkaApis(silentLogger());
    apis.register(ApiKey.ApiVersions, apiVersionsHandler({ supportedApis: () => apis.supportedApis() } as BrokerServices));
    const codec = ApiVersions.versions.get(v)!;
    const frame = Buffer.concat(encodeRequestFrame(codec, { correlationId: 9, clientId: 'test' }, { clientSoftwareName: 'gregor-test', clientSoftwareVersion: '1' }));
    const out = await apis.handleFrame(frame.subarray(4), conn);
    const { correlationId, response } = decodeResponseFrame(Buffer.concat(out!).subarray(4), codec);
    expect(correlationId).toBe(9);
    expect(response.errorCode).toBe(0);
    expect(response.apiKeys).toEqual(supportedApiVersions());
    expect(response.apiKeys.find((k) => k.apiKey === ApiKey.Fetch)).toEqual({ apiKey: 1, minVersion: 0, maxVersion: 11 });
  });
});
