import { describe, expect, it } from 'vitest';
import { ConfigError } from '@gregor/common';
import { consumerServiceConfig } from './service-config.js';

const base = [['group.id', 'g'], ['zookeeper.connect', '127.0.0.1:2181']] as const;
const config = (...extra: [string, string][]) => consumerServiceConfig(new Map([...base, ...extra]));

describe('consumer-service config', () => {
  it('splits service keys from consumer settings, with defaults', () => {
    const c = config(['topics', 'a:3, b'], ['num.streams', '2'], ['auto.offset.reset', 'smallest']);
    expect(c.subscription).toEqual({ kind: 'static', topics: { a: 3, b: 2 } });
    expect(c.consumer.autoOffsetReset).toBe('smallest');
    expect([c.httpHost, c.httpPort]).toEqual(['127.0.0.1', 8090]);
    expect(config(['topic.whitelist', 'logs.*'], ['http.port', '0']).subscription).toEqual({ kind: 'filter', filter: { kind: 'white_list', regex: 'logs.*' }, numStreams: 1 });
  });

  it.each([
    [[], /exactly one of "topics"/],
    [[['topics', 'a'], ['topic.blacklist', 'b']], /exactly one of "topics"/],
    [[['topics', 'a:x']], /must be an integer/],
    [[['topics', 'a'], ['http.port', '70000']], /"http.port" must be between 0 and 65535/],
    [[['topics', 'a'], ['fetch.size', '1']], /unknown consumer config "fetch.size"/],
  ] as [[string, string][], RegExp][])('rejects %j', (extra, message) => {
    expect(() => config(...extra)).toThrow(ConfigError);
    expect(() => config(...extra)).toThrow(message);
  });
});
