import { describe, expect, it } from 'vitest';
import { ErrorCode, GregorError } from '@gregor/common';
import { AlterConfigOpType as Op } from '@gregor/protocol';
import { brokerConfigKey } from './broker-config.js';
import { applyIncrementalOps } from './incremental-alter.js';
import { topicConfigKey } from './topic-config.js';

const op = (name: string, configOperation: number, value: string | null = null) => ({ name, configOperation, value });

function code(fn: () => unknown): [number, string] {
  try {
    fn();
  } catch (err) {
    if (err instanceof GregorError) return [err.code, err.message];
    throw err;
  }
  throw new Error('not refused');
}

describe('IncrementalAlterConfigs operations', () => {
  it('SET replaces, DELETE removes, untouched overrides stay', () => {
    const current = { 'retention.ms': '1000', 'segment.bytes': '2048', 'min.insync.replicas': '2' };
    expect(applyIncrementalOps(current, [op('retention.ms', Op.SET, '5000'), op('segment.bytes', Op.DELETE), op('max.message.bytes', Op.SET, '100')], topicConfigKey)).toEqual({
      'retention.ms': '5000',
      'min.insync.replicas': '2',
      'max.message.bytes': '100',
    });
    expect(applyIncrementalOps(current, [op('not.set', Op.DELETE)], topicConfigKey)).toEqual(current);
    expect(current['segment.bytes']).toBe('2048'); // the input is not changed
  });

  it('APPEND/SUBTRACT edit a LIST from its override, else from its default', () => {
    expect(applyIncrementalOps({}, [op('cleanup.policy', Op.APPEND, 'compact')], topicConfigKey)).toEqual({ 'cleanup.policy': 'delete,compact' });
    expect(applyIncrementalOps({ 'cleanup.policy': 'compact,delete' }, [op('cleanup.policy', Op.SUBTRACT, 'delete')], topicConfigKey)).toEqual({ 'cleanup.policy': 'compact' });
    expect(applyIncrementalOps({}, [op('cleanup.policy', Op.SUBTRACT, 'delete')], topicConfigKey)).toEqual({ 'cleanup.policy': '' });
    // SUBTRACT takes away one occurrence per given value (Scala's List.diff)
    expect(applyIncrementalOps({ 'cleanup.policy': 'compact,delete,compact' }, [op('cleanup.policy', Op.SUBTRACT, 'compact')], topicConfigKey)).toEqual({ 'cleanup.policy': 'delete,compact' });
    expect(applyIncrementalOps({}, [op('log.cleanup.policy', Op.APPEND, 'compact')], brokerConfigKey)).toEqual({ 'log.cleanup.policy': 'delete,compact' });
  });

  it('refuses duplicates, APPEND/SUBTRACT on non-lists or unknown names, and unknown operations', () => {
    expect(code(() => applyIncrementalOps({}, [op('retention.ms', Op.SET, '1'), op('retention.ms', Op.DELETE)], topicConfigKey))).toEqual([
      ErrorCode.INVALID_REQUEST,
      'Error due to duplicate config keys : retention.ms',
    ]);
    expect(code(() => applyIncrementalOps({}, [op('retention.ms', Op.APPEND, '1')], topicConfigKey))).toEqual([
      ErrorCode.INVALID_REQUEST,
      'Config value append is not allowed for config key: retention.ms',
    ]);
    expect(code(() => applyIncrementalOps({}, [op('retention.ms', Op.SUBTRACT, '1')], topicConfigKey))[1]).toBe('Config value subtract is not allowed for config key: retention.ms');
    expect(code(() => applyIncrementalOps({}, [op('nope', Op.APPEND, 'x')], topicConfigKey))[0]).toBe(ErrorCode.INVALID_CONFIG);
    expect(code(() => applyIncrementalOps({}, [op('cleanup.policy', Op.APPEND)], topicConfigKey))[0]).toBe(ErrorCode.INVALID_REQUEST);
    expect(code(() => applyIncrementalOps({}, [op('retention.ms', 9, '1')], topicConfigKey))[1]).toMatch(/Unknown config operation 9/);
  });
});
