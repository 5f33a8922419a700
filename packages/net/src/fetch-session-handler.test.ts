import { describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { FetchSessionHandler, type SessionPartition } from './fetch-session-handler.js';

const p = (partition: number, fetchOffset = 0, topic = 't'): SessionPartition => ({ topic, partition, fetchOffset, logStartOffset: -1, partitionMaxBytes: 1024, currentLeaderEpoch: 3 });
const names = (ps: readonly { topic: string; partition: number }[]) => ps.map((x) => `${x.topic}-${x.partition}`);

/** A response listing these partitions. */
function response(sessionId: number, partitions: string[], errorCode = 0) {
  const topics = new Map<string, number[]>();
  for (const name of partitions) {
    const i = name.lastIndexOf('-');
    const list = topics.get(name.slice(0, i)) ?? [];
    list.push(Number(name.slice(i + 1)));
    topics.set(name.slice(0, i), list);
  }
  return {
    errorCode,
    sessionId,
    responses: [...topics].map(([topic, ps]) => ({
      topic,
      partitionResponses: ps.map((partition) => ({ partition, errorCode: 0, highWatermark: 0, lastStableOffset: 0, logStartOffset: 0, abortedTransactions: null, recordSet: null })),
    })),
  };
}

/** A handler with session 77 established over t-0..t-3. */
function established() {
  const h = new FetchSessionHandler(1);
  const full = h.build([p(0), p(1), p(2), p(3)]);
  expect(full).toMatchObject({ sessionId: 0, epoch: 0, isFull: true });
  expect(names(full.toSend)).toEqual(['t-0', 't-1', 't-2', 't-3']);
  expect(h.handleResponse(response(77, ['t-0', 't-1', 't-2', 't-3']))).toBe(true);
  expect([h.sessionId, h.epoch]).toEqual([77, 1]);
  return h;
}

describe('FetchSessionHandler', () => {
  it('sends only added and altered partitions in an incremental request, and forgets dropped ones', () => {
    const h = established();
    const same = h.build([p(0), p(1), p(2), p(3)]);
    expect(same).toMatchObject({ sessionId: 77, epoch: 1, isFull: false, toSend: [], toForget: [] });
    expect(h.handleResponse(response(77, []))).toBe(true);
    expect(h.epoch).toBe(2);

    // t-1 moved on, t-2 is dropped, u-0 is new: the new one comes first, then the altered one.
    const inc = h.build([p(0), p(1, 10), p(3), p(0, 0, 'u')]);
    expect(inc.epoch).toBe(2);
    expect(names(inc.toSend)).toEqual(['u-0', 't-1']);
    expect(inc.toSend[1]!.fetchOffset).toBe(10);
    expect(names(inc.toForget)).toEqual(['t-2']);
    expect([...inc.sessionPartitions.keys()]).toEqual(['t-0', 't-1', 't-3', 'u-0']);
    // An incremental response may list any session partitions, or none.
    expect(h.handleResponse(response(77, ['t-1']))).toBe(true);
    expect(h.epoch).toBe(3);
    // A change of leader epoch, log start or max bytes is an alteration too.
    expect(names(h.build([{ ...p(0), currentLeaderEpoch: 4 }, { ...p(1, 10), logStartOffset: 5 }, { ...p(3), partitionMaxBytes: 1 }, p(0, 0, 'u')]).toSend)).toEqual(['t-0', 't-1', 't-3']);
  });

  it('FETCH_SESSION_ID_NOT_FOUND starts over with (0, 0); other errors and failures close the session with (id, 0)', () => {
    const h = established();
    h.build([p(0)]);
    expect(h.handleResponse(response(0, [], ErrorCode.FETCH_SESSION_ID_NOT_FOUND))).toBe(false);
    expect([h.sessionId, h.epoch, h.isFull]).toEqual([0, 0, true]);
    expect(names(h.build([p(0), p(1)]).toSend)).toEqual(['t-0', 't-1']);
    expect(h.handleResponse(response(78, ['t-0', 't-1']))).toBe(true);
    expect([h.sessionId, h.epoch]).toEqual([78, 1]);

    h.build([p(0), p(1)]);
    expect(h.handleResponse(response(0, [], ErrorCode.INVALID_FETCH_SESSION_EPOCH))).toBe(false);
    expect([h.sessionId, h.epoch]).toEqual([78, 0]);
    const full = h.build([p(0), p(1)]);
    expect(full).toMatchObject({ sessionId: 78, epoch: 0, isFull: true });
    expect(h.handleResponse(response(79, ['t-0', 't-1']))).toBe(true);

    h.build([p(0), p(1)]);
    h.handleError();
    expect([h.sessionId, h.epoch]).toEqual([79, 0]);
  });

  it('a full response without a session keeps asking for one; an incremental response with session 0 means the broker closed it', () => {
    const h = new FetchSessionHandler(1);
    h.build([p(0)]);
    expect(h.handleResponse(response(0, ['t-0']))).toBe(true);
    expect([h.sessionId, h.epoch]).toEqual([0, 0]);
    h.build([p(0)]);
    h.handleResponse(response(5, ['t-0']));
    h.build([p(0)]);
    expect(h.handleResponse(response(0, []))).toBe(true);
    expect([h.sessionId, h.epoch]).toEqual([0, 0]);
  });

  it('rejects a full response that omits or adds partitions, and an incremental one with partitions outside the session', () => {
    const h = new FetchSessionHandler(1);
    h.build([p(0), p(1)]);
    expect(h.handleResponse(response(5, ['t-0']))).toBe(false);
    expect([h.sessionId, h.epoch]).toEqual([0, 0]);
    h.build([p(0), p(1)]);
    expect(h.handleResponse(response(5, ['t-0', 't-1', 't-2']))).toBe(false);
    h.build([p(0), p(1)]);
    expect(h.handleResponse(response(5, ['t-0', 't-1']))).toBe(true);
    h.build([p(0), p(1)]);
    expect(h.handleResponse(response(5, ['t-9']))).toBe(false);
    expect([h.sessionId, h.epoch]).toEqual([5, 0]);
  });

  it('disabled, every request is sessionless (0, -1) with every partition', () => {
    const h = new FetchSessionHandler(1, { enabled: false });
    for (let i = 0; i < 3; i++) {
      const req = h.build([p(0, i), p(1)]);
      expect(req).toMatchObject({ sessionId: 0, epoch: -1, isFull: true, toForget: [] });
      expect(req.toSend).toHaveLength(2);
      expect(h.handleResponse(response(0, ['t-0', 't-1']))).toBe(true);
    }
    h.handleError();
    expect(h.epoch).toBe(-1);
  });
});
