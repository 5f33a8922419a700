import { describe, expect, it } from 'vitest';
import { ErrorCode, GregorError, silentLogger } from '@gregor/common';
import { buildBrokerConfig } from './broker-config.js';
import { DynamicBrokerConfig } from './dynamic-broker-config.js';

function dynamic(staticProps: Record<string, string> = {}) {
  const config = buildBrokerConfig(new Map(Object.entries({ 'broker.id': '1', 'zookeeper.connect': 'z:2181', ...staticProps })));
  return new DynamicBrokerConfig(config, silentLogger());
}

function refusal(fn: () => void): [number, string] {
  try {
    fn();
  } catch (err) {
    if (err instanceof GregorError) return [err.code, err.message];
    throw err;
  }
  throw new Error('not refused');
}

describe('dynamic broker configs', () => {
  it('precedence: per-broker > <default> > server.properties > default, applied to the live config object', () => {
    const dyn = dynamic({ 'log.retention.hours': '24', 'min.insync.replicas': '2' });
    const live = dyn.config;
    const changes: string[][] = [];
    dyn.onReconfigure((fields) => changes.push(fields));
    expect(live.logRetentionMs).toBe(24 * 3_600_000);
    dyn.updateDefault({ 'log.retention.ms': '7200000', 'min.insync.replicas': '3' });
    expect([live.logRetentionMs, live.minInsyncReplicas]).toEqual([7_200_000, 3]);
    dyn.updateBroker({ 'min.insync.replicas': '4' });
    expect([live.logRetentionMs, live.minInsyncReplicas]).toEqual([7_200_000, 4]);
    dyn.updateBroker({}); // the per-broker set is replaced as a whole
    expect(live.minInsyncReplicas).toBe(3);
    dyn.updateDefault({});
    expect([live.logRetentionMs, live.minInsyncReplicas]).toEqual([24 * 3_600_000, 2]);
    expect(changes).toEqual([['minInsyncReplicas', 'logRetentionMs'], ['minInsyncReplicas'], ['minInsyncReplicas'], ['minInsyncReplicas', 'logRetentionMs']]);
    expect(dyn.setting('log.retention.hours')).toBe('24');
    expect(live.originals['min.insync.replicas']).toBe('2');
  });

  it('ignores from ZooKeeper what cannot be applied at run time, and keeps the old config on a bad value', () => {
    const dyn = dynamic();
    dyn.updateDefault({ 'broker.id': '7', listeners: 'PLAINTEXT://:1', 'message.max.bytes': '5000', 'no.such.thing': '1' });
    expect(dyn.config.brokerId).toBe(1);
    expect(dyn.config.messageMaxBytes).toBe(5000);
    expect(dyn.levels().dynamicDefault).toEqual({ 'message.max.bytes': '5000' });
    dyn.updateDefault({ 'message.max.bytes': 'lots' });
    expect(dyn.config.messageMaxBytes).toBe(5000);
  });

  it('AlterConfigs validation: read-only, per-broker-only at <default>, unknown names, bad values and nulls are refused by name', () => {
    const dyn = dynamic();
    expect(refusal(() => dyn.validate({ 'num.partitions': '3' }, true))).toEqual([ErrorCode.INVALID_REQUEST, expect.stringMatching(/Cannot update these configs dynamically: num.partitions/)]);
    expect(refusal(() => dyn.validate({ 'log.retention.hours': '3' }, false))).toEqual([ErrorCode.INVALID_REQUEST, expect.stringMatching(/dynamically: log.retention.hours/)]);
    expect(refusal(() => dyn.validate({ listeners: 'PLAINTEXT://:9093' }, false))).toEqual([
      ErrorCode.INVALID_REQUEST,
      'Cannot update these configs at default cluster level, broker id must be specified: listeners',
    ]);
    expect(refusal(() => dyn.validate({ 'ssl.keystore.location': '/k' }, false))[1]).toMatch(/default cluster level.*ssl.keystore.location/);
    expect(refusal(() => dyn.validate({ listeners: 'PLAINTEXT://:9093' }, true))).toEqual([ErrorCode.INVALID_REQUEST, expect.stringMatching(/dynamically: listeners/)]);
    expect(refusal(() => dyn.validate({ 'no.such.config': '1' }, true))).toEqual([ErrorCode.INVALID_CONFIG, 'Unknown broker config name: no.such.config']);
    expect(refusal(() => dyn.validate({ 'min.insync.replicas': '0' }, false))).toEqual([ErrorCode.INVALID_REQUEST, expect.stringMatching(/min.insync.replicas: must be at least 1/)]);
    expect(refusal(() => dyn.validate({ 'log.cleanup.policy': 'shred' }, false))[1]).toMatch(/log.cleanup.policy/);
    expect(refusal(() => dyn.validate({ 'message.max.bytes': null }, true))).toEqual([ErrorCode.INVALID_REQUEST, 'Null value not supported for: message.max.bytes']);
    expect(() => dyn.validate({ 'log.retention.ms': '1000', 'unclean.leader.election.enable': 'true', 'compression.type': 'gzip' }, false)).not.toThrow();
  });
});
