import { ErrorCode } from '@gregor/common';
import { describe, expect, it } from 'vitest';
import { Reader } from '../../primitives/reader.js';
import { loadFixture } from '../../test-fixtures/load-fixture.js';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { ApiVersions, encodeApiVersionsUnsupportedVersion } from './index.js';
import type { ApiVersionsRequest, ApiVersionsResponse } from './types.js';

const request = (v: number): ApiVersionsRequest =>
  v >= 3 ? { clientSoftwareName: 'gregor-client', clientSoftwareVersion: '0.1.0' } : { clientSoftwareName: '', clientSoftwareVersion: '' };
const response = (v: number): ApiVersionsResponse => ({
  errorCode: 0,
  apiKeys: [
    { apiKey: 0, minVersion: 3, maxVersion: 7 },
    { apiKey: 18, minVersion: 0, maxVersion: 3 },
  ],
  throttleTimeMs: v >= 1 ? 25 : 0,
});

describe('ApiVersions', () => {
  it.each([...ApiVersions.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = ApiVersions.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v3 request body matches the bytes librdkafka 2.0.2 sent (compact strings, empty tags)', () => {
    const expected = Buffer.concat([Buffer.from([0x0b]), Buffer.from('librdkafka'), Buffer.from([0x06]), Buffer.from('2.0.2'), Buffer.from([0x00])]);
    const v3 = ApiVersions.versions.get(3)!;
    expect(decodeBody(v3, 'Request', expected).value).toEqual({ clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.0.2' });
    expect(encodeBody(v3, 'Request', { clientSoftwareName: 'librdkafka', clientSoftwareVersion: '2.0.2' })).toEqual(expected);
    expect(v3.flexible).toBe(true);
  });

  it('decodes and re-encodes the captured kafkajs v0 and v1 responses byte for byte', () => {
    for (const [v, name] of [[0, 'apiVersions-v0_response'], [1, 'apiVersions-v1_response']] as const) {
      const body = loadFixture(name);
      const codec = ApiVersions.versions.get(v)!;
      const { value, leftover } = decodeBody(codec, 'Response', body);
      expect(leftover).toBe(0);
      expect((value as ApiVersionsResponse).apiKeys).toContainEqual({ apiKey: 18, minVersion: 0, maxVersion: expect.any(Number) });
      expect(encodeBody(codec, 'Response', value)).toEqual(body);
    }
  });

  it('encodes the unsupported-version answer as header v0 + v0 body with error 35 and only ApiVersions', () => {
    const frame = Buffer.concat(encodeApiVersionsUnsupportedVersion(7, 0, 3));
    expect(frame.toString('hex')).toBe(['00000010', '00000007', '0023', '00000001', '0012', '0000', '0003'].join(''));
    const r = new Reader(frame, 8);
    expect(ApiVersions.versions.get(0)!.decodeResponse(r)).toEqual({
      errorCode: ErrorCode.UNSUPPORTED_VERSION,
      apiKeys: [{ apiKey: 18, minVersion: 0, maxVersion: 3 }],
      throttleTimeMs: 0,
    });
  });
});
