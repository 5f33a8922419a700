import { describe, expect, it } from 'vitest';
import { ConfigError } from '@gregor/common';
import { consumerConfig } from './consumer-config.js';

const base = { 'group.id': 'g', 'zookeeper.connect': '127.0.0.1:2181' };

describe('ConsumerConfig', () => {
  it("has Kafka's defaults", () => {
    const c = consumerConfig(base);
    expect(c).toMatchObject({
      groupId: 'g',
      zookeeperSessionTimeoutMs: 6000,
      zookeeperConnectionTimeoutMs: 6000,
      autoCommitEnable: true,
      autoCommitIntervalMs: 60_000,
      rebalanceMaxRetries: 4,
      rebalanceBackoffMs: 2000,
      refreshLeaderBackoffMs: 200,
      fetchMessageMaxBytes: 1_048_576,
      fetchMinBytes: 1,
      fetchWaitMaxMs: 100,
      queuedMaxMessageChunks: 2,
      consumerTimeoutMs: -1,
      autoOffsetReset: 'largest',
      offsetsStorage: 'zookeeper',
      dualCommitEnabled: false,
      offsetsCommitMaxRetries: 5,
      offsetsChannelBackoffMs: 1000,
      offsetsChannelSocketTimeoutMs: 10_000,
      partitionAssignmentStrategy: 'range',
      numConsumerFetchers: 1,
      excludeInternalTopics: true,
      clientId: 'g',
    });
    expect(c.consumerId).toMatch(/^g_.+-\d{13}-[0-9a-f]{8}$/);
  });

  it('takes earliest and latest for smallest and largest', () => {
    expect(consumerConfig({ ...base, 'auto.offset.reset': 'earliest' }).autoOffsetReset).toBe('smallest');
    expect(consumerConfig({ ...base, 'auto.offset.reset': 'latest' }).autoOffsetReset).toBe('largest');
    expect(consumerConfig({ ...base, 'auto.offset.reset': 'smallest' }).autoOffsetReset).toBe('smallest');
  });

  it('derives consumer id, rebalance backoff and dual commit like Kafka', () => {
    const c = consumerConfig({ ...base, 'consumer.id': 'c1', 'zookeeper.sync.time.ms': '500', 'offsets.storage': 'kafka' });
    expect(c.consumerId).toBe('g_c1');
    expect(c.rebalanceBackoffMs).toBe(500);
    expect(c.dualCommitEnabled).toBe(true);
    expect(consumerConfig({ ...base, 'offsets.storage': 'kafka', 'dual.commit.enabled': 'false' }).dualCommitEnabled).toBe(false);
  });

  it.each([
    [{ 'zookeeper.connect': 'h:1' }, /"group.id" is required/],
    [{ 'group.id': 'g' }, /"zookeeper.connect" is required/],
    [{ ...base, 'zookeeper.connect': 'nohost' }, /host:port/],
    [{ ...base, 'auto.offset.reset': 'beginning' }, /"auto.offset.reset" must be one of smallest, largest, earliest, latest/],
    [{ ...base, 'partition.assignment.strategy': 'sticky' }, /range, roundrobin/],
    [{ ...base, 'fetch.min.bytes': 'x' }, /"fetch.min.bytes" must be an integer/],
    [{ ...base, 'queued.max.message.chunks': 0 }, /between 1 and/],
    [{ ...base, 'auto.commit.enable': 'yes' }, /true or false/],
    [{ ...base, 'fetch.wait.max.ms': 40_000 }, /must not exceed "socket.timeout.ms"/],
    [{ ...base, 'group.id': 'a/b' }, /must not contain "\/"/],
    [{ ...base, 'auto.commit.intervall.ms': 1 }, /unknown consumer config "auto.commit.intervall.ms"/],
  ])('rejects %o', (props, message) => {
    expect(() => consumerConfig(props as Record<string, string>)).toThrow(ConfigError);
    expect(() => consumerConfig(props as Record<string, string>)).toThrow(message);
  });
});
