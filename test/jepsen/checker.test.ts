import { describe, expect, it } from 'vitest';
import { anomalies, check, checkElections, checkIsrMembers, longestGapOverlapping, type FinalLog } from './checker.js';
import type { DistributiveOmit, HistoryEvent, SendEvent, StateEvent } from './history.js';

/** Builds histories by hand: each helper appends events with the given time. */
class H {
  readonly events: HistoryEvent[] = [];
  #add(e: DistributiveOmit<HistoryEvent, 'index'>): void {
    this.events.push({ ...e, index: this.events.length } as HistoryEvent);
  }
  send(time: number, value: string, partition: number, result: 'ok' | 'fail' | 'info', offset?: number, attempt = 1, process = 'w0'): this {
    this.#add({ f: 'send', type: 'invoke', process, value, partition, attempt, time });
    this.#add({ f: 'send', type: result, process, value, partition, attempt, time: time + 1, ...(offset !== undefined ? { offset } : { error: 'X' }) });
    return this;
  }
  poll(time: number, partition: number, fetchOffset: number, records: [number, string][], highWatermark: number, process = 'r0'): this {
    this.#add({ f: 'poll', type: 'ok', process, partition, fetchOffset, records, highWatermark, time });
    return this;
  }
  state(time: number, partition: number, zkVersion: number, leader: number, isr: number[], leaderEpoch = zkVersion, joinedUnregistered?: number[]): this {
    this.#add({ f: 'partition-state', type: 'info', process: 'zookeeper', partition, zkVersion, leader, isr, leaderEpoch, time, ...(joinedUnregistered ? { joinedUnregistered } : {}) });
    return this;
  }
  brokers(time: number, brokerIds: number[]): this {
    this.#add({ f: 'brokers', type: 'info', process: 'zookeeper', brokerIds, time });
    return this;
  }
  fault(start: number, end: number, id = 1, fault = 'kill-leader'): this {
    this.#add({ f: 'fault-start', type: 'info', process: 'nemesis', id, fault, detail: '', time: start });
    this.#add({ f: 'fault-end', type: 'info', process: 'nemesis', id, fault, detail: '', time: end });
    this.events.sort((a, b) => a.time - b.time);
    this.events.forEach((e, i) => (e.index = i));
    return this;
  }
}

const log = (...partitions: [number, string][][]): FinalLog => ({
  topic: 't',
  partitions: partitions.map((records, partition) => ({ partition, logStartOffset: 0, highWatermark: records.length, records })),
});

describe('Jepsen checker', () => {
  it('a clean history is valid', () => {
    const h = new H().send(0, 'a', 0, 'ok', 0).send(10, 'b', 0, 'ok', 1).send(20, 'c', 1, 'ok', 0).poll(30, 0, 0, [[0, 'a'], [1, 'b']], 2);
    const r = check(h.events, log([[0, 'a'], [1, 'b']], [[0, 'c']]));
    expect(anomalies(r)).toEqual([]);
    expect(r.valid).toBe(true);
    expect(r.counts).toMatchObject({ sendOk: 3, valuesAcked: 3, recordsRead: 2, finalRecords: 3 });
  });

  it('an acknowledged value missing from the final log is lost; an unacknowledged one is not', () => {
    const h = new H().send(0, 'a', 0, 'ok', 0).send(10, 'b', 0, 'ok', 1).send(20, 'c', 0, 'info');
    const r = check(h.events, log([[0, 'a']]));
    expect(r.lost).toEqual([{ value: 'b', partition: 0, offset: 1 }]);
    expect(r.valid).toBe(false);
  });

  it('an acknowledged value at another offset than the ack named is reported', () => {
    const h = new H().send(0, 'a', 0, 'ok', 0).send(10, 'b', 0, 'ok', 1);
    const r = check(h.events, log([[0, 'b'], [1, 'a']]));
    expect(r.ackOffsetMismatch.map((m) => m.value).sort()).toEqual(['a', 'b']);
    expect(r.lost).toEqual([]);
  });

  it('a value at two offsets is a duplicate unless a retry explains it', () => {
    const h = new H().send(0, 'a', 0, 'ok', 0).send(10, 'b', 0, 'info').send(20, 'b', 0, 'ok', 2, 2);
    const r = check(h.events, log([[0, 'a'], [1, 'b'], [2, 'b'], [3, 'a']]));
    expect(r.explainedDuplicates).toBe(1);
    expect(r.unexplainedDuplicates).toEqual([{ value: 'a', partition: 0, offsets: [0, 3], attempts: 1 }]);
  });

  it('a definite failure that is in the log, and a record nobody sent, are reported', () => {
    const h = new H().send(0, 'a', 0, 'fail').send(10, 'b', 0, 'ok', 1);
    const r = check(h.events, log([[0, 'a'], [1, 'b'], [2, 'zzz']]));
    expect(r.failedButPresent).toEqual([{ value: 'a', partition: 0, offsets: [0] }]);
    expect(r.unexpected).toEqual([{ partition: 0, offset: 2, value: 'zzz' }]);
  });

  it('consumer offsets must be dense and increasing per consumer and partition', () => {
    const h = new H()
      .send(0, 'a', 0, 'ok', 0)
      .send(1, 'b', 0, 'ok', 1)
      .send(2, 'c', 0, 'ok', 2)
      .poll(10, 0, 0, [[0, 'a']], 3)
      .poll(11, 0, 1, [[2, 'c']], 3)
      .poll(12, 0, 3, [[1, 'b']], 3)
      .poll(13, 0, 0, [[0, 'a'], [1, 'b']], 3, 'r1');
    const r = check(h.events, log([[0, 'a'], [1, 'b'], [2, 'c']]));
    expect(r.nonMonotonicReads.map((x) => [x.process, x.expected, x.got, x.kind])).toEqual([
      ['r0', 1, 2, 'gap'],
      ['r0', 3, 1, 'backwards'],
    ]);
  });

  it('a read that is not in the final log (HW shrank, log truncated and rewritten) is reported with the HW regression', () => {
    const h = new H().send(0, 'a', 0, 'ok', 0).send(1, 'b', 0, 'info').send(2, 'c', 0, 'ok', 1).poll(10, 0, 0, [[0, 'a'], [1, 'b']], 2);
    const r = check(h.events, log([[0, 'a'], [1, 'c']]));
    expect(r.readsNotInFinal).toEqual([{ process: 'r0', partition: 0, offset: 1, value: 'b', finalValue: 'c', time: 10 }]);
    const shorter = check(new H().send(0, 'a', 0, 'ok', 0).poll(10, 0, 0, [[0, 'a']], 5).events, log([[0, 'a']]));
    expect(shorter.highWatermarkRegressions).toEqual([{ partition: 0, highWatermark: 5, finalHighWatermark: 1 }]);
  });

  it('elections: a new leader must be in the previous ISR; a missed znode version makes the change unverified', () => {
    const states = new H()
      .state(0, 0, 0, 1, [1, 2, 3])
      .state(10, 0, 1, 1, [1, 2]) // ISR shrink
      .state(20, 0, 2, 2, [2]) // 2 was in [1, 2]: fine
      .state(30, 0, 3, 3, [3]) // 3 was not in [2]: unclean
      .state(40, 0, 6, 1, [1, 3]) // versions 4, 5 missed
      .state(0, 1, 0, 2, [2, 3])
      .state(5, 1, 1, -1, [2]) // offline: not a leader change to check
      .events.filter((e): e is StateEvent => e.f === 'partition-state');
    const r = checkElections(states);
    expect(r.checked).toBe(2);
    expect(r.unverified).toBe(1);
    expect(r.violations).toHaveLength(1);
    expect(r.violations[0]).toMatchObject({ partition: 0, from: { leader: 2, isr: [2] }, to: { leader: 3 } });
  });

  it('an ISR that took in a broker not registered in ZooKeeper is reported (availability, not safety)', () => {
    const h = new H()
      .brokers(0, [1, 2, 3])
      .state(1, 0, 0, 1, [1, 2, 3])
      .brokers(10, [1, 2]) // broker 3's session expired
      .state(11, 0, 1, 1, [1, 2], 0)
      .state(12, 0, 2, 1, [1, 2, 3], 0, [3]) // the leader took 3 back before it registered again
      .state(20, 0, 3, 1, [1, 2], 0)
      .state(30, 0, 4, 1, [1, 2, 3], 0, []); // 3 registered first: fine
    const r = checkIsrMembers(h.events);
    expect(r).toEqual([{ partition: 0, time: 12, isr: [1, 2, 3], broker: 3, registered: [1, 2], zkVersion: 2 }]);
    expect(check(h.events, log([])).valid).toBe(true);
  });

  it('availability: the longest gap without acks around each fault, overall and on the worst partition', () => {
    const h = new H();
    for (let t = 0; t <= 10_000; t += 100) h.send(t, `p0-${t}`, 0, 'ok', t / 100);
    for (let t = 0; t <= 10_000; t += 100) if (t < 3000 || t >= 7400) h.send(t, `p1-${t}`, 1, 'ok', t / 100);
    h.fault(3000, 7000);
    const p0 = h.events.filter((e): e is SendEvent => e.f === 'send' && e.type === 'ok' && e.partition === 0).map((e): [number, string] => [e.offset!, e.value]);
    const p1 = h.events.filter((e): e is SendEvent => e.f === 'send' && e.type === 'ok' && e.partition === 1).map((e): [number, string] => [e.offset!, e.value]);
    const r = check(h.events, log(p0, p1));
    expect(r.valid).toBe(true);
    const [w] = r.faults;
    expect(w).toMatchObject({ fault: 'kill-leader', start: 3000, end: 7000, worstPartition: 1, longestAckGapMs: 100 });
    expect(w!.worstPartitionAckGapMs).toBe(7401 - 2901);
    expect(w!.firstAckAfterHealMs).toBe(401);
  });

  it('longestGapOverlapping counts the gap open before the window and a gap left open at the end of the run', () => {
    expect(longestGapOverlapping([0, 1000, 5000], 2000, 3000, 6000)).toBe(4000);
    expect(longestGapOverlapping([0, 1000], 2000, 3000, 9000)).toBe(8000);
    expect(longestGapOverlapping([], 2000, 3000, 9000)).toBe(7000);
  });

  it('a gap that opens just before the next fault is counted for that fault only', () => {
    const h = new H();
    // Acks every 100 ms, except 2000-3000 (the first fault's) and 9950-16000 (the second fault's, from 10000).
    for (let t = 0; t <= 20_000; t += 50) if ((t < 2000 || t >= 3000) && (t <= 9950 || t >= 16_000)) h.send(t, `v-${t}`, 0, 'ok', t / 50);
    h.fault(1000, 5000);
    h.fault(10_000, 12_000, 2);
    const ok = h.events.filter((e): e is SendEvent => e.f === 'send' && e.type === 'ok').map((e): [number, string] => [e.offset!, e.value]);
    const r = check(h.events, log(ok));
    expect(r.faults.map((f) => f.worstPartitionAckGapMs)).toEqual([1050, 6050]);
    expect(longestGapOverlapping([0, 9950, 16_000], 1000, 10_000, 20_000, 10_000)).toBe(9950);
    expect(longestGapOverlapping([0, 4000, 9950, 16_000], 1000, 10_000, 20_000, 10_000)).toBe(5950);
  });
});
