import { describe, expect, it } from 'vitest';
import { ConfigError } from '@gregor/common';
import { buildBrokerConfig, propertiesFromEnv, propertiesFromOverrides } from './broker-config.js';
import { parseProperties } from './properties.js';

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
    expect(c.listeners).toEqual([{ listenerName: 'PLAINTEXT', host: '', port: 9092 }]);
    expect(c.advertisedListeners[0]).toEqual({ listenerName: 'PLAINTEXT', host: '127.0.0.1', port: 9092 });
    expect(c.logDirs).toEqual(['/tmp/kafka-logs']);
    expect(c.logRetentionMs).toBe(168 * 3600_000);
    expect(c.messageMaxBytes).toBe(1048588);
    expect(c.minInsyncReplicas).toBe(1);
    expect(c.uncleanLeaderElectionEnable).toBe(false);
  });

  it('env overrides file, flags override env', () => {
    const env = propertiesFromEnv({ KAFKA_NUM_PARTITIONS: '4', KAFKA_LOG_RETENTION_MS: '1000', PATH: '/bin' });
    const flags = propertiesFromOverrides(['num.partitions=6']);
    const c = buildBrokerConfig(base(), env, flags);
    expect(c.numPartitions).toBe(6);
    expect(c.logRetentionMs).toBe(1000);
  });

  it('rejects unknown settings, bad values and missing required ones with clear messages', () => {
    expect(() => buildBrokerConfig(base(), new Map([['num.partitons', '3']]))).toThrow(/Unknown configuration "num.partitons"/);
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
