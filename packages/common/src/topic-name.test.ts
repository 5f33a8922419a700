import { describe, expect, it } from 'vitest';
import { ErrorCode, GregorError, topicNameProblem, validateTopicName } from '@gregor/common';

describe('topic names', () => {
  it('accepts legal names', () => {
    for (const n of ['a', 'orders', 'my.topic_1-x', 'x'.repeat(249), '__consumer_offsets']) expect(topicNameProblem(n)).toBeUndefined();
  });
  it('refuses names that could reach the filesystem badly or that Kafka refuses', () => {
    for (const n of ['', '.', '..', 'x'.repeat(250), 'a/b', '../etc', 'a b', 'tab\t', 'nul\0', 'é', 'a:b', 'a\\b']) {
      expect(topicNameProblem(n), JSON.stringify(n)).toBeDefined();
    }
    try {
      validateTopicName('../x');
      expect.unreachable();
    } catch (e) {
      expect(e).toBeInstanceOf(GregorError);
      expect((e as GregorError).code).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    }
  });
});
