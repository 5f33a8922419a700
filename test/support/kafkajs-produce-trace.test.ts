import { describe, expect, it } from 'vitest';
import type { StoredBatch } from './idempotent-log.js';
import { checkKafkajsAnswers, type TracedProduce } from './kafkajs-produce-trace.js';

// The accounting of idempotent-producers.test.ts: only a sequence reuse the trace proves excuses an acknowledged value
// missing at its offset; every other mismatch is a loss.
const batch = (baseOffset: number, baseSequence: number, values: string[]): StoredBatch => ({ baseOffset, lastOffset: baseOffset + values.length - 1, producerId: 0, producerEpoch: 0, baseSequence, values });

// The run where kafkajs lost kj-824,kj-827: seq 272 first carried kj-818,kj-821 to broker 2, killed before it answered.
const failedFirst: TracedProduce = { broker: 2, batches: [{ partition: 2, firstSequence: 272, values: ['kj-818', 'kj-821'] }], answer: { error: 'KafkaJSConnectionClosedError: Closed connection' } };
const reusedThen: TracedProduce = { broker: 1, batches: [{ partition: 2, firstSequence: 272, values: ['kj-824', 'kj-827'] }], answer: [{ partition: 2, errorCode: 0, baseOffset: 272 }] };
const answer = { partition: 2, baseOffset: 272, values: ['kj-824', 'kj-827'] };

describe('checkKafkajsAnswers', () => {
  it('confirms values stored at the offset their answer gave', () => {
    const r = checkKafkajsAnswers([answer], [[], [], [batch(272, 272, ['kj-824', 'kj-827'])]], [reusedThen], new Set(answer.values));
    expect(r).toEqual({ confirmed: ['kj-824', 'kj-827'], reusedSequence: [], lost: [] });
  });

  it('excuses a value answered as the duplicate of an unacknowledged batch that kafkajs had given the same sequence', () => {
    const r = checkKafkajsAnswers([answer], [[], [], [batch(272, 272, ['kj-818', 'kj-821'])]], [failedFirst, reusedThen], new Set(answer.values));
    expect(r.lost).toEqual([]);
    expect(r.reusedSequence.map((x) => x.values)).toEqual([['kj-824', 'kj-827']]);
  });

  it('reports a loss when the trace does not prove the reuse', () => {
    const stored = [[], [], [batch(272, 272, ['kj-818', 'kj-821'])]];
    const acked = new Set(answer.values);
    // No earlier request with that sequence: the broker answered a batch it does not hold.
    expect(checkKafkajsAnswers([answer], stored, [reusedThen], acked).lost).toHaveLength(1);
    // The earlier batch was acknowledged: kafkajs moved past its sequence, so a duplicate answer is wrong.
    const answeredFirst: TracedProduce = { ...failedFirst, answer: [{ partition: 2, errorCode: 0, baseOffset: 272 }] };
    expect(checkKafkajsAnswers([answer], stored, [answeredFirst, reusedThen], acked).lost).toHaveLength(1);
    expect(checkKafkajsAnswers([answer], stored, [failedFirst, reusedThen], new Set([...acked, 'kj-818'])).lost).toHaveLength(1);
    // The stored batch has another sequence, or nothing is stored at the offset.
    expect(checkKafkajsAnswers([answer], [[], [], [batch(272, 270, ['kj-818', 'kj-821'])]], [failedFirst, reusedThen], acked).lost).toHaveLength(1);
    expect(checkKafkajsAnswers([answer], [[], [], []], [failedFirst, reusedThen], acked).lost).toHaveLength(1);
    // The answered request sent these values with another sequence than the earlier batch's.
    const otherSeq: TracedProduce = { ...reusedThen, batches: [{ partition: 2, firstSequence: 274, values: ['kj-824', 'kj-827'] }] };
    expect(checkKafkajsAnswers([answer], stored, [failedFirst, otherSeq], acked).lost).toHaveLength(1);
  });
});
