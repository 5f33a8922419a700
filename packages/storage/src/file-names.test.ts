import { describe, expect, it } from 'vitest';
import { ErrorCode, GregorError } from '@gregor/common';
import { filenamePrefixFromOffset, logFileName, offsetFromFileName, parseTopicPartitionDir, partitionDirName } from './file-names.js';

describe('file names', () => {
  it('pads base offsets to 20 digits and parses them back', () => {
    expect(logFileName(0)).toBe('00000000000000000000.log');
    expect(filenamePrefixFromOffset(1234)).toBe('00000000000000001234');
    expect(offsetFromFileName('00000000000000001234.timeindex')).toBe(1234);
    expect(offsetFromFileName('1234.log')).toBeNull();
  });

  it('splits partition directories at the last dash', () => {
    expect(partitionDirName('orders-eu', 3)).toBe('orders-eu-3');
    expect(parseTopicPartitionDir('orders-eu-3')).toEqual({ topic: 'orders-eu', partition: 3 });
    expect(parseTopicPartitionDir('orders')).toBeNull();
    expect(parseTopicPartitionDir('orders-x')).toBeNull();
    expect(parseTopicPartitionDir('-1')).toBeNull();
  });

  it('refuses names that could escape the log dir', () => {
    for (const topic of ['..', '.', 'a/b', '../x', '']) {
      let thrown: unknown;
      try {
        partitionDirName(topic, 0);
      } catch (err) {
        thrown = err;
      }
      expect(thrown, topic).toBeInstanceOf(GregorError);
      expect((thrown as GregorError).code).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    }
  });
});
