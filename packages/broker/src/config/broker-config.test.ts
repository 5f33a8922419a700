import { describe, expect, it } from 'vitest';
import { ConfigError } from '@gregor/common';
import { buildBrokerConfig, propertiesFromEnv, propertiesFromOverrides } from './broker-config.js';
import { parseProperties } from './properties.js';
import { effectiveTopicConfig } from './topic-config.js';

const base = () => new Map([['broker.id', '1'], ['zookeeper.connect', '127.0.0.1:2181']]);

describe('broker configuration', () => {
  it("parses Kafka's server.properties syntax", () => {
    const p = parseProperties('# comment\n! also\nbroker.id=3\nlog.dirs = /a,/b\nzookeeper.connect: z1:2181,\\\n  z2:2181\nkey\\=x=1\n');
    expect(p.get('broker.id')).toBe('3');
    expect(p.get('log.dirs')).toBe('/a,/b');
    expect(p.get('zookeeper.connect')).toBe('z1:2181,z2:2181');
    expect(p.get('key=x')).toBe('1');
  });

  it("applies Kafka's defaults", () => {
    const c = buildBrokerConfig(base());
    expect(c.listeners).toEqual([{ listenerName: 'PLAINTEXT', host: '', port: 9092, securityProtocol: 'PLAINTEXT' }]);
    expect(c.advertisedListeners[0]).toEqual({ listenerName: 'PLAINTEXT', host: '127.0.0.1', port: 9092, securityProtocol: 'PLAINTEXT' });
    expect(c.logDirs).toEqual(['/tmp/kafka-logs']);
    expect(c.logRetentionMs).toBe(168 * 3600_000);
    expect(c.messageMaxBytes).toBe(1048588);
    expect(c.minInsyncReplicas).toBe(1);
    expect(c.uncleanLeaderElectionEnable).toBe(false);
  });

  it('log.flush.interval.* are the topics` flush.messages / flush.ms defaults; unset means never, checked every second', () => {
    const never = buildBrokerConfig(base());
    expect([never.logFlushIntervalMessages, never.logFlushIntervalMs, never.logFlushCheckIntervalMs]).toEqual([Number.MAX_SAFE_INTEGER, Number.MAX_SAFE_INTEGER, 1000]);
    expect(effectiveTopicConfig(never, {}).log).toMatchObject({ flushMessages: Number.MAX_SAFE_INTEGER, flushMs: Number.MAX_SAFE_INTEGER });
    const c = buildBrokerConfig(new Map([...base(), ['log.flush.interval.messages', '100'], ['log.flush.scheduler.interval.ms', '200']]));
    // log.flush.interval.ms falls back to the scheduler interval, as in Kafka.
    expect([c.logFlushIntervalMessages, c.logFlushIntervalMs, c.logFlushCheckIntervalMs]).toEqual([100, 200, 200]);
    expect(effectiveTopicConfig(c, { 'flush.messages': '1', 'flush.ms': '50' }).log).toMatchObject({ flushMessages: 1, flushMs: 50 });
    expect(() => buildBrokerConfig(new Map([...base(), ['log.flush.interval.messages', '0']]))).toThrow(ConfigError);
  });

  it('env overrides file, flags override env', () => {
    const env = propertiesFromEnv({ KAFKA_NUM_PARTITIONS: '4', KAFKA_LOG_RETENTION_MS: '1000', PATH: '/bin' });
    const flags = propertiesFromOverrides(['num.partitions=6']);
    const c = buildBrokerConfig(base(), env, flags);
    expect(c.numPartitions).toBe(6);
    expect(c.logRetentionMs).toBe(1000);
  });

  it('ignores unknown settings as Kafka does, naming the nearest known one when it looks like a typo', () => {
    const c = buildBrokerConfig(base(), new Map([['num.partitons', '3'], ['jmx.port', '9999']]));
    expect(c.numPartitions).toBe(1);
    expect(c.unknownSettings).toEqual([
      { name: 'num.partitons', suggestion: 'num.partitions' },
      { name: 'jmx.port', suggestion: null },
    ]);
  });

  it('reads the environment conventions of the common images (KAFKA_*, KAFKA_CFG_*), skipping script variables', () => {
    const env = propertiesFromEnv({
      KAFKA_LOG_DIRS: '/a',
      KAFKA_CFG_LOG_DIRS: '/b',
      KAFKA_CFG_NUM_PARTITIONS: '5',
      KAFKA_HEAP_OPTS: '-Xmx1G',
      KAFKA_JMX_OPTS: '-Dx',
      KAFKA_LISTENER_NAME_INTERNAL_SSL_KEY__PASSWORD: 'p',
      KAFKA_SOME___DASHED: 'd',
    });
    expect(Object.fromEntries(env)).toEqual({ 'log.dirs': '/b', 'num.partitions': '5', 'listener.name.internal.ssl.key_password': 'p', 'some-dashed': 'd' });
  });

  it('rejects bad values and missing required settings with clear messages', () => {
    expect(() => buildBrokerConfig(base(), new Map([['num.partitions', 'three']]))).toThrow(ConfigError);
    expect(() => buildBrokerConfig(base(), new Map([['num.partitions', '0']]))).toThrow(/must be at least 1/);
    expect(() => buildBrokerConfig(base(), new Map([['auto.create.topics.enable', 'yes']]))).toThrow(/true or false/);
    expect(() => buildBrokerConfig(new Map([['broker.id', '1']]))).toThrow(/Missing required configuration "zookeeper.connect"/);
    expect(() => buildBrokerConfig(base(), new Map([['listeners', 'PLAINTEXT://:99999']]))).toThrow(/port out of range/);
    expect(() => buildBrokerConfig(base(), new Map([['advertised.listeners', 'OTHER://h:1']]))).toThrow(/not in listeners/);
  });

  it("accepts the settings of Kafka's stock server.properties", () => {
    const c = buildBrokerConfig(base(), new Map([['num.network.threads', '3'], ['socket.send.buffer.bytes', '102400']]));
    expect(c.brokerId).toBe(1);
  });
});
