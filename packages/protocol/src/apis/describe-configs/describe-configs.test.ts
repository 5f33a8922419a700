import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test-fixtures/load-fixture.js';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { ConfigSource } from '../config-resources.js';
import { DescribeConfigs } from './index.js';
import type { DescribeConfigsRequest, DescribeConfigsResponse } from './types.js';

const hex = (s: string) => Buffer.from(s, 'utf8').toString('hex');
/** Compact string: uvarint(length + 1) then the bytes (names here are short: one length byte). */
const cs = (s: string) => (s.length + 1).toString(16).padStart(2, '0') + hex(s);

const request = (v: number): DescribeConfigsRequest => ({
  resources: [
    { resourceType: 2, resourceName: 'orders', configurationKeys: ['retention.ms', 'cleanup.policy'] },
    { resourceType: 4, resourceName: '1', configurationKeys: null },
  ],
  includeSynonyms: v >= 1,
  includeDocumentation: v >= 3,
});

const response = (v: number): DescribeConfigsResponse => ({
  throttleTimeMs: 0,
  results: [
    {
      errorCode: 0,
      errorMessage: null,
      resourceType: 2,
      resourceName: 'orders',
      configs: [
        {
          name: 'retention.ms',
          value: '3600000',
          readOnly: false,
          configSource: ConfigSource.TOPIC_CONFIG,
          isSensitive: false,
          synonyms: v >= 1 ? [{ name: 'retention.ms', value: '3600000', source: 1 }, { name: 'log.retention.ms', value: null, source: 2 }] : [],
          configType: v >= 3 ? 5 : 0,
          documentation: v >= 3 ? 'How long a log is kept.' : null,
          ...(v === 0 ? { isDefault: false } : {}),
        },
        {
          name: 'cleanup.policy',
          value: 'delete',
          readOnly: false,
          configSource: ConfigSource.DEFAULT_CONFIG,
          isSensitive: false,
          synonyms: [],
          configType: v >= 3 ? 7 : 0,
          documentation: null,
          ...(v === 0 ? { isDefault: true } : {}),
        },
      ],
    },
    { errorCode: 42, errorMessage: 'Unexpected broker id, expected 1 or empty string, but received 7', resourceType: 4, resourceName: '7', configs: [] },
  ],
});

describe('DescribeConfigs', () => {
  it.each([...DescribeConfigs.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = DescribeConfigs.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('v0 writes is_default from the source and reads a source back as Kafka clients backfill it', () => {
    const v0 = DescribeConfigs.versions.get(0)!;
    const res: DescribeConfigsResponse = {
      throttleTimeMs: 0,
      results: [
        {
          errorCode: 0,
          errorMessage: null,
          resourceType: 4,
          resourceName: '1',
          configs: [
            { name: 'a', value: '1', readOnly: true, configSource: ConfigSource.DEFAULT_CONFIG, isSensitive: false },
            { name: 'b', value: '2', readOnly: true, configSource: ConfigSource.STATIC_BROKER_CONFIG, isSensitive: false },
          ],
        },
      ],
    };
    const decoded = roundTrip(v0, 'Response', res).decoded.results[0]!.configs;
    expect(decoded.map((c) => [c.isDefault, c.configSource])).toEqual([
      [true, ConfigSource.DEFAULT_CONFIG],
      [false, ConfigSource.STATIC_BROKER_CONFIG],
    ]);
  });

  it.each([
    ['describeConfigs-v0_request', 0, 'Request'],
    ['describeConfigs-v0_response', 0, 'Response'],
    ['describeConfigs-v1_request', 1, 'Request'],
    ['describeConfigs-v1_response', 1, 'Response'],
  ] as const)('decodes and re-encodes the captured kafkajs body %s byte for byte', (name, v, kind) => {
    const body = loadFixture(name);
    const codec = DescribeConfigs.versions.get(v)!;
    const { value, leftover } = decodeBody(codec, kind, body);
    expect(leftover).toBe(0);
    expect(encodeBody(codec, kind, value)).toEqual(body);
  });

  it('reads the v1 response of a real Kafka: source DEFAULT_CONFIG, synonyms as Kafka lists them', () => {
    const { value } = decodeBody(DescribeConfigs.versions.get(1)!, 'Response', loadFixture('describeConfigs-v1_response'));
    const configs = (value as DescribeConfigsResponse).results[0]!.configs;
    expect(configs.map((c) => [c.name, c.value, c.configSource, c.synonyms])).toEqual([
      ['compression.type', 'producer', 5, [{ name: 'compression.type', value: 'producer', source: 5 }]],
      ['retention.ms', '604800000', 5, []],
    ]);
  });
});

describe('DescribeConfigs v4 (flexible), laid out as Kafka 2.8 DescribeConfigsRequest/Response.json', () => {
  const v4 = DescribeConfigs.versions.get(4)!;

  it('request: compact arrays and strings, nullable keys, a tag section per struct', () => {
    const bytes = encodeBody(v4, 'Request', {
      resources: [
        { resourceType: 2, resourceName: 't1', configurationKeys: ['retention.ms'] },
        { resourceType: 4, resourceName: '', configurationKeys: null },
      ],
      includeSynonyms: true,
      includeDocumentation: true,
    });
    const expected =
      '03' + // resources: 2 + 1
      '02' + cs('t1') + '02' + cs('retention.ms') + '00' + // TOPIC t1 [retention.ms] tags
      '04' + '01' + '00' + '00' + // BROKER "" null-keys tags
      '01' + '01' + // include_synonyms, include_documentation
      '00'; // body tags
    expect(bytes.toString('hex')).toBe(expected);
    expect(decodeBody(v4, 'Request', bytes).value).toEqual({
      resources: [
        { resourceType: 2, resourceName: 't1', configurationKeys: ['retention.ms'] },
        { resourceType: 4, resourceName: '', configurationKeys: null },
      ],
      includeSynonyms: true,
      includeDocumentation: true,
    });
  });

  it('response: results, configs and synonyms each end with a tag section; null value and documentation are uvarint 0', () => {
    const res: DescribeConfigsResponse = {
      throttleTimeMs: 0,
      results: [
        {
          errorCode: 0,
          errorMessage: null,
          resourceType: 2,
          resourceName: 't1',
          configs: [
            {
              name: 'retention.ms',
              value: '1000',
              readOnly: false,
              configSource: 1,
              isSensitive: false,
              synonyms: [{ name: 'retention.ms', value: '1000', source: 1 }],
              configType: 5,
              documentation: 'doc',
            },
            { name: 'secret', value: null, readOnly: true, configSource: 5, isSensitive: true, synonyms: [], configType: 9, documentation: null },
          ],
        },
      ],
    };
    const expected =
      '00000000' + // throttle_time_ms
      '02' + // results: 1 + 1
      '0000' + '00' + '02' + cs('t1') + // error_code, error_message null, TOPIC, t1
      '03' + // configs: 2 + 1
      cs('retention.ms') + cs('1000') + '00' + '01' + '00' + // name value read_only config_source is_sensitive
      '02' + cs('retention.ms') + cs('1000') + '01' + '00' + // synonyms [name value source tags]
      '05' + cs('doc') + '00' + // config_type LONG, documentation, tags
      cs('secret') + '00' + '01' + '05' + '01' + '01' + '09' + '00' + '00' + // null value, read-only, default, sensitive, no synonyms, PASSWORD, null doc, tags
      '00' + // result tags
      '00'; // body tags
    const bytes = encodeBody(v4, 'Response', res);
    expect(bytes.toString('hex')).toBe(expected);
    expect(decodeBody(v4, 'Response', bytes).value).toEqual(res);
  });

  it('v4 reads the smallest result: the cluster-wide broker default ("") with no dynamic configs', () => {
    const res: DescribeConfigsResponse = { throttleTimeMs: 0, results: [{ errorCode: 0, errorMessage: null, resourceType: 4, resourceName: '', configs: [] }] };
    const bytes = encodeBody(v4, 'Response', res);
    expect(bytes.toString('hex')).toBe('00000000' + '02' + '0000' + '00' + '04' + '01' + '01' + '00' + '00');
    expect(decodeBody(v4, 'Response', bytes).value).toEqual(res);
  });
});
