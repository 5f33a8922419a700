import { describe, expect, it } from 'vitest';
import { loadFixture } from '../../test-fixtures/load-fixture.js';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { CreateTopics } from './index.js';
import type { CreateTopicsRequest, CreateTopicsResponse } from './types.js';

const request = (v: number): CreateTopicsRequest => ({
  topics: [
    { name: 'orders', numPartitions: 3, replicationFactor: 2, assignments: [], configs: [{ name: 'cleanup.policy', value: 'delete' }, { name: 'x', value: null }] },
    { name: 'placed', numPartitions: -1, replicationFactor: -1, assignments: [{ partitionIndex: 0, brokerIds: [1, 2] }], configs: [] },
  ],
  timeoutMs: 5000,
  validateOnly: v >= 1,
});

const response = (v: number): CreateTopicsResponse => ({
  throttleTimeMs: v >= 2 ? 3 : 0,
  topics: [
    {
      name: 'orders',
      errorCode: 0,
      errorMessage: null,
      topicConfigErrorCode: v >= 5 ? 29 : 0,
      numPartitions: v >= 5 ? 3 : -1,
      replicationFactor: v >= 5 ? 2 : -1,
      configs: v >= 5 ? [{ name: 'cleanup.policy', value: 'delete', readOnly: false, configSource: 1, isSensitive: false }] : [],
    },
    {
      name: 'placed',
      errorCode: 36,
      errorMessage: v >= 1 ? "Topic 'placed' already exists." : null,
      topicConfigErrorCode: 0,
      numPartitions: -1,
      replicationFactor: -1,
      configs: v >= 5 ? null : [],
    },
  ],
});

describe('CreateTopics', () => {
  it.each([...CreateTopics.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = CreateTopics.versions.get(v)!;
    for (const [kind, value] of [['Request', request(v)], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it.each([
    [0, 'Request'],
    [0, 'Response'],
    [1, 'Request'],
    [1, 'Response'],
    [2, 'Request'],
    [2, 'Response'],
  ] as const)('decodes and re-encodes the captured kafkajs v%i %s byte for byte', (v, kind) => {
    const body = loadFixture(`createTopics-v${v}_${kind.toLowerCase()}`);
    const codec = CreateTopics.versions.get(v)!;
    const { value, leftover } = decodeBody(codec, kind, body);
    expect(leftover).toBe(0);
    expect((value as CreateTopicsResponse).topics.length).toBeGreaterThan(0);
    expect(encodeBody(codec, kind, value)).toEqual(body);
  });

  it('v5 (flexible) lays out the request as Kafka 2.4 CreateTopicsRequest.json says', () => {
    const v5 = CreateTopics.versions.get(5)!;
    const req: CreateTopicsRequest = {
      topics: [{ name: 't', numPartitions: 2, replicationFactor: 1, assignments: [], configs: [{ name: 'a', value: null }] }],
      timeoutMs: 1000,
      validateOnly: true,
    };
    // topics uvarint(1+1); name "t" 02 74; num_partitions i32 2; replication_factor i16 1; assignments uvarint(0+1);
    // configs uvarint(1+1): name "a" 02 61, value null 00, tags 00; topic tags 00; timeout_ms i32 1000; validate_only 01; body tags 00
    const bytes = encodeBody(v5, 'Request', req);
    expect(bytes.toString('hex')).toBe('02' + '0274' + '00000002' + '0001' + '01' + '02' + '0261' + '00' + '00' + '00' + '000003e8' + '01' + '00');
    expect(decodeBody(v5, 'Request', bytes).value).toEqual(req);
  });

  it('v5 (flexible) echoes configs and writes topic_config_error_code as tagged field 0 only when non-zero (KIP-525)', () => {
    const v5 = CreateTopics.versions.get(5)!;
    const res: CreateTopicsResponse = {
      throttleTimeMs: 0,
      topics: [
        {
          name: 't',
          errorCode: 0,
          errorMessage: null,
          topicConfigErrorCode: 0,
          numPartitions: 1,
          replicationFactor: 1,
          configs: [{ name: 'a', value: '1', readOnly: false, configSource: 5, isSensitive: false }],
        },
        { name: 'u', errorCode: 36, errorMessage: null, topicConfigErrorCode: 29, numPartitions: -1, replicationFactor: -1, configs: null },
      ],
    };
    const bytes = encodeBody(v5, 'Response', res);
    expect(bytes.toString('hex')).toBe(
      '00000000' + // throttle_time_ms
        '03' + // topics uvarint(2+1)
        '0274' + '0000' + '00' + '00000001' + '0001' + // "t", error_code 0, error_message null, num_partitions 1, replication_factor 1
        '02' + '0261' + '0231' + '00' + '05' + '00' + '00' + // configs uvarint(1+1): "a", "1", read_only, config_source 5 (DEFAULT_CONFIG), is_sensitive, tags
        '00' + // topic tags: none (topic_config_error_code 0 is the default)
        '0275' + '0024' + '00' + 'ffffffff' + 'ffff' + '00' + // "u", 36, null, -1, -1, configs null
        '01' + '00' + '02' + '001d' + // topic tags: one field, tag 0, size 2, topic_config_error_code 29 (TOPIC_AUTHORIZATION_FAILED)
        '00', // body tags
    );
    expect(decodeBody(v5, 'Response', bytes).value).toEqual(res);
  });
});
