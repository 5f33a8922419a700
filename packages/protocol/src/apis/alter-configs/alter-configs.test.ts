import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test-fixtures/load-fixture.js';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { AlterConfigs } from './index.js';
import type { AlterConfigsRequest, AlterConfigsResponse } from './types.js';

const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');
const cs = (s: string) => (s.length + 1).toString(16).padStart(2, '0') + hex(s);

const request: AlterConfigsRequest = {
  resources: [
    { resourceType: 2, resourceName: 'orders', configs: [{ name: 'retention.ms', value: '3600000' }, { name: 'cleanup.policy', value: 'compact,delete' }] },
    { resourceType: 4, resourceName: '', configs: [{ name: 'log.retention.ms', value: null }] },
  ],
  validateOnly: true,
};

const response: AlterConfigsResponse = {
  throttleTimeMs: 0,
  responses: [
    { errorCode: 0, errorMessage: null, resourceType: 2, resourceName: 'orders' },
    { errorCode: 42, errorMessage: 'Cannot update these configs dynamically: broker.id', resourceType: 4, resourceName: '' },
  ],
};

describe('AlterConfigs', () => {
  it.each([...AlterConfigs.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = AlterConfigs.versions.get(v)!;
    for (const [kind, value] of [['Request', request], ['Response', response]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it.each([
    ['alterConfigs-v0_request', 'Request'],
    ['alterConfigs-v0_response', 'Response'],
  ] as const)('decodes and re-encodes the captured kafkajs body %s byte for byte', (name, kind) => {
    const body = loadFixture(name);
    const v0 = AlterConfigs.versions.get(0)!;
    const { value, leftover } = decodeBody(v0, kind, body);
    expect(leftover).toBe(0);
    expect(encodeBody(v0, kind, value)).toEqual(body);
  });

  it('v2 (flexible) is laid out as Kafka 2.8 AlterConfigsRequest/Response.json', () => {
    const v2 = AlterConfigs.versions.get(2)!;
    const req = encodeBody(v2, 'Request', {
      resources: [{ resourceType: 4, resourceName: '', configs: [{ name: 'log.retention.ms', value: '3600000' }, { name: 'x', value: null }] }],
      validateOnly: false,
    });
    expect(req.toString('hex')).toBe(
      '02' + '04' + '01' + // resources: 1; BROKER; "" (<default>)
        '03' + cs('log.retention.ms') + cs('3600000') + '00' + cs('x') + '00' + '00' + // configs [name value tags], null value = 0
        '00' + // resource tags
        '00' + '00', // validate_only, body tags
    );
    const res = encodeBody(v2, 'Response', { throttleTimeMs: 0, responses: [{ errorCode: 42, errorMessage: 'bad', resourceType: 4, resourceName: '1' }] });
    expect(res.toString('hex')).toBe('00000000' + '02' + '002a' + cs('bad') + '04' + cs('1') + '00' + '00');
  });
});
