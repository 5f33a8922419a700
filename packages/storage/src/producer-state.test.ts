import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrorCode, GregorError } from '@gregor/common';
import type { BatchHeader } from '@gregor/protocol';
import { decrementSequence, incrementSequence, NUM_BATCHES_TO_RETAIN, ProducerStateEntry } from './producer-state.js';
import { batchLastSequence, ProducerStateManager } from './producer-state-manager.js';
import { tempDir, testLogger } from './test-batches.js';

let dir: { path: string; cleanup(): void };
beforeEach(() => {
  dir = tempDir('gregor-producer-state-');
});
afterEach(() => dir.cleanup());

const INT32_MAX = 0x7fffffff;

function manager(expirationMs = 86_400_000): ProducerStateManager {
  return new ProducerStateManager({ dir: dir.path, name: 't-0', producerIdExpirationMs: expirationMs, logger: testLogger() });
}

/** A batch header as the log sees it once offsets are assigned. */
function batch(producerId: number, producerEpoch: number, baseSequence: number, baseOffset: number, count = 1, maxTimestamp = 1_000): BatchHeader {
  return {
    position: 0,
    sizeInBytes: 100,
    batchLength: 88,
    crc: 0,
    compression: 0,
    timestampType: 0,
    isTransactional: false,
    isControl: false,
    baseOffset,
    lastOffset: baseOffset + count - 1,
    lastOffsetDelta: count - 1,
    partitionLeaderEpoch: 0,
    magic: 2,
    attributes: 0,
    firstTimestamp: maxTimestamp,
    maxTimestamp,
    producerId,
    producerEpoch,
    baseSequence,
    recordCount: count,
  };
}

/** Client append of one batch: the error code it gets, or 'dup@<offset>', or 'ok' (then applied). */
function append(ps: ProducerStateManager, b: BatchHeader): string {
  try {
    const { updates, duplicate } = ps.analyzeAppend([b], 'client');
    if (duplicate) return `dup@${duplicate.lastOffset - duplicate.offsetDelta}`;
    ps.update(updates);
    ps.updateMapEndOffset(b.lastOffset + 1);
    return 'ok';
  } catch (err) {
    if (err instanceof GregorError) return String(err.code);
    throw err;
  }
}

describe('sequence arithmetic', () => {
  it('wraps past Int.MAX to 0 and back (DefaultRecordBatch)', () => {
    expect(incrementSequence(5, 3)).toBe(8);
    expect(incrementSequence(INT32_MAX, 1)).toBe(0);
    expect(incrementSequence(INT32_MAX - 1, 3)).toBe(1);
    expect(decrementSequence(1, 3)).toBe(INT32_MAX - 1);
    expect(decrementSequence(8, 3)).toBe(5);
    expect(batchLastSequence({ baseSequence: INT32_MAX - 1, lastOffsetDelta: 4 })).toBe(2);
    expect(batchLastSequence({ baseSequence: -1, lastOffsetDelta: 4 })).toBe(-1);
  });
});

describe('producer state checks (Kafka 2.4, kafka-next.md §4.3)', () => {
  it('accepts sequences in order and answers a retried batch with its original offsets', () => {
    const ps = manager();
    expect(append(ps, batch(7, 0, 0, 0, 3))).toBe('ok');
    expect(append(ps, batch(7, 0, 3, 3, 2))).toBe('ok');
    expect(append(ps, batch(7, 0, 0, 5, 3))).toBe('dup@0');
    expect(append(ps, batch(7, 0, 3, 5, 2))).toBe('dup@3');
    // same first sequence but a different range is not a duplicate: it is out of order
    expect(append(ps, batch(7, 0, 3, 5, 1))).toBe(String(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER));
    expect(ps.lastEntry(7)!.lastSeq).toBe(4);
  });

  it('a gap is OUT_OF_ORDER_SEQUENCE_NUMBER; an old epoch is INVALID_PRODUCER_EPOCH', () => {
    const ps = manager();
    expect(append(ps, batch(7, 1, 0, 0, 2))).toBe('ok');
    expect(append(ps, batch(7, 1, 3, 2))).toBe(String(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER));
    expect(append(ps, batch(7, 1, 1, 2))).toBe(String(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER));
    expect(append(ps, batch(7, 0, 2, 2))).toBe(String(ErrorCode.INVALID_PRODUCER_EPOCH));
    expect(append(ps, batch(7, 0, 0, 2))).toBe(String(ErrorCode.INVALID_PRODUCER_EPOCH));
    expect(append(ps, batch(7, 1, 2, 2))).toBe('ok');
  });

  it('a new epoch must start at 0 (then the old batches are forgotten)', () => {
    const ps = manager();
    expect(append(ps, batch(7, 0, 0, 0, 5))).toBe('ok');
    expect(append(ps, batch(7, 1, 5, 5))).toBe(String(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER));
    expect(append(ps, batch(7, 1, 0, 5))).toBe('ok');
    expect(ps.lastEntry(7)!.batches).toHaveLength(1);
    expect(append(ps, batch(7, 0, 0, 6, 5))).toBe(String(ErrorCode.INVALID_PRODUCER_EPOCH));
  });

  it('an unknown producer must start at sequence 0, else UNKNOWN_PRODUCER_ID (2.4)', () => {
    const ps = manager();
    expect(append(ps, batch(9, 0, 42, 0))).toBe(String(ErrorCode.UNKNOWN_PRODUCER_ID));
    expect(ps.isEmpty).toBe(true);
    expect(append(ps, batch(9, 0, 0, 0))).toBe('ok');
  });

  it('wraps: after Int.MAX comes 0', () => {
    const ps = manager();
    ps.loadBatches([batch(3, 0, INT32_MAX - 1, 0, 2)]);
    expect(ps.lastEntry(3)!.lastSeq).toBe(INT32_MAX);
    expect(append(ps, batch(3, 0, 0, 2))).toBe('ok');
  });

  it('remembers the last 5 batches: the 6th oldest retry is no longer recognised', () => {
    const ps = manager();
    for (let i = 0; i < 6; i++) expect(append(ps, batch(7, 0, i, i))).toBe('ok');
    expect(ps.lastEntry(7)!.batches).toHaveLength(NUM_BATCHES_TO_RETAIN);
    expect(append(ps, batch(7, 0, 1, 6))).toBe('dup@1');
    expect(append(ps, batch(7, 0, 0, 6))).toBe(String(ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER));
  });

  it('replication appends are not checked (the leader did) and still build the same state', () => {
    const ps = manager();
    ps.loadBatches([batch(7, 0, 5, 10, 2), batch(7, 0, 99, 12)]);
    expect(ps.lastEntry(7)!.lastSeq).toBe(99);
    expect(append(ps, batch(7, 0, 5, 13, 2))).toBe('dup@10');
  });

  it('checks every batch of one append and applies nothing when one fails', () => {
    const ps = manager();
    expect(() => ps.analyzeAppend([batch(7, 0, 0, 0), batch(7, 0, 2, 1)], 'client')).toThrow(GregorError);
    expect(ps.isEmpty).toBe(true);
    const { updates } = ps.analyzeAppend([batch(7, 0, 0, 0), batch(7, 0, 1, 1), batch(8, 0, 0, 2)], 'client');
    ps.update(updates);
    expect([...ps.activeProducers().keys()]).toEqual([7, 8]);
    expect(ps.lastEntry(7)!.lastDataOffset).toBe(1);
  });

  it('expires producers idle for producer.id.expiration.ms, measured from their last batch timestamp', () => {
    const ps = manager(1000);
    ps.loadBatches([batch(1, 0, 0, 0, 1, 5_000), batch(2, 0, 0, 1, 1, 5_800)]);
    expect(ps.removeExpiredProducers(5_999)).toBe(0);
    expect(ps.removeExpiredProducers(6_000)).toBe(1);
    expect([...ps.activeProducers().keys()]).toEqual([2]);
    expect(ps.removeExpiredProducers(6_799)).toBe(0);
    expect(ps.removeExpiredProducers(6_800)).toBe(1);
    expect(ps.isEmpty).toBe(true);
  });

  it('truncateHead forgets producers whose last batch is below the new log start', () => {
    const ps = manager();
    ps.loadBatches([batch(1, 0, 0, 0, 5), batch(2, 0, 0, 5, 5), batch(1, 0, 5, 10)]);
    ps.updateMapEndOffset(11);
    ps.truncateHead(10);
    expect([...ps.activeProducers().keys()]).toEqual([1]);
    expect(ps.lastEntry(1)!.batches.map((b) => b.lastOffset)).toEqual([10]);
    // producer 2 comes back with its next sequence: the broker no longer knows it
    expect(append(ps, batch(2, 0, 5, 11))).toBe(String(ErrorCode.UNKNOWN_PRODUCER_ID));
  });

  it('ProducerStateEntry.update keeps at most 5 batches across appends', () => {
    const e = new ProducerStateEntry(1, { producerEpoch: 0 });
    for (let i = 0; i < 4; i++) e.addBatch(0, i, i, 0, i);
    const next = new ProducerStateEntry(1, { producerEpoch: 0 });
    next.addBatch(0, 4, 4, 0, 4);
    next.addBatch(0, 5, 5, 0, 5);
    e.update(next);
    expect(e.batches.map((b) => b.lastSeq)).toEqual([1, 2, 3, 4, 5]);
    expect(e.lastTimestamp).toBe(5);
  });
});
