import { describe, expect, it } from 'vitest';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { AlterConfigOpType } from '../config-resources.js';
import { IncrementalAlterConfigs } from './index.js';
import type { IncrementalAlterConfigsRequest, IncrementalAlterConfigsResponse } from './types.js';

const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');
const cs = (s: string) => (s.length + 1).toString(16).padStart(2, '0') + hex(s);

const request: IncrementalAlterConfigsRequest = {
  resources: [
    {
      resourceType: 2,
      resourceName: 't1',
      configs: [
        { name: 'cleanup.policy', configOperation: AlterConfigOpType.APPEND, value: 'compact' },
        { name: 'retention.ms', configOperation: AlterConfigOpType.DELETE, value: null },
      ],
    },
  ],
  validateOnly: true,
};

const response: IncrementalAlterConfigsResponse = {
  throttleTimeMs: 0,
  responses: [{ errorCode: 0, errorMessage: null, resourceType: 2, resourceName: 't1' }],
};

describe('IncrementalAlterConfigs', () => {
  it.each([...IncrementalAlterConfigs.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = IncrementalAlterConfigs.versions.get(v)!;
    for (const [kind, value] of [['Request', request], ['Response', response]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v0 (classic) lays out name, operation and nullable value', () => {
    const bytes = encodeBody(IncrementalAlterConfigs.versions.get(0)!, 'Request', request);
    const s = (x: string) => x.length.toString(16).padStart(4, '0') + hex(x);
    expect(bytes.toString('hex')).toBe(
      '00000001' + '02' + s('t1') + '00000002' + s('cleanup.policy') + '02' + s('compact') + s('retention.ms') + '01' + 'ffff' + '01',
    );
  });

  it('v1 (flexible) is laid out as Kafka IncrementalAlterConfigsRequest/Response.json', () => {
    const v1 = IncrementalAlterConfigs.versions.get(1)!;
    const bytes = encodeBody(v1, 'Request', request);
    expect(bytes.toString('hex')).toBe(
      '02' + '02' + cs('t1') + // resources: 1; TOPIC t1
        '03' + cs('cleanup.policy') + '02' + cs('compact') + '00' + cs('retention.ms') + '01' + '00' + '00' + // [name op value tags]
        '00' + // resource tags
        '01' + '00', // validate_only, body tags
    );
    expect(decodeBody(v1, 'Request', bytes).value).toEqual(request);
    expect(encodeBody(v1, 'Response', response).toString('hex')).toBe('00000000' + '02' + '0000' + '00' + '02' + cs('t1') + '00' + '00');
  });
});
