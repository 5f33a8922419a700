// The checker: reads a history and the final log (read again at the end by a fresh consumer) and reports
// what broke "nothing acknowledged is lost" and how long writes were unavailable around each fault.
import type { FaultEvent, HistoryEvent, PollEvent, SendEvent, StateEvent } from './history.js';

export interface FinalPartition {
  partition: number;
  logStartOffset: number;
  highWatermark: number;
  /** Every record from logStartOffset to highWatermark, in offset order. */
  records: [number, string][];
}

export interface FinalLog {
  topic: string;
  partitions: FinalPartition[];
}

export interface FaultWindow {
  id: number;
  fault: string;
  detail: string;
  start: number;
  end: number;
  /** Longest time without any acknowledged write (any partition) overlapping the fault or the settle time after it. */
  longestAckGapMs: number;
  /** The same per partition; the worst partition is what a client of that partition saw. */
  worstPartitionAckGapMs: number;
  worstPartition: number | null;
  /** From the heal to the first ack on every partition (the slowest partition), null if none came. */
  firstAckAfterHealMs: number | null;
  /** Acknowledged writes while the fault lasted. */
  acksDuring: number;
}

export interface ElectionViolation {
  partition: number;
  time: number;
  from: { leader: number; isr: number[]; leaderEpoch: number; zkVersion: number };
  to: { leader: number; isr: number[]; leaderEpoch: number; zkVersion: number };
}

export interface CheckResult {
  /** True when no safety anomaly was found (availability is reported, not judged here). */
  valid: boolean;
  counts: {
    sendInvokes: number;
    sendOk: number;
    sendFail: number;
    sendInfo: number;
    valuesAcked: number;
    polls: number;
    recordsRead: number;
    finalRecords: number;
  };
  /** Acknowledged values that are not in the final log of their partition. */
  lost: { value: string; partition: number; offset: number }[];
  /** Acknowledged values found in the final log, but not at the offset the ack named. */
  ackOffsetMismatch: { value: string; partition: number; ackedOffset: number; finalOffsets: number[] }[];
  /** Values at two or more offsets although they were sent once: no retry explains the copy. */
  unexplainedDuplicates: { value: string; partition: number; offsets: number[]; attempts: number }[];
  /** Values at two or more offsets after a retry of the send (allowed without idempotence). */
  explainedDuplicates: number;
  /** Values whose every attempt failed definitely (the broker said it did not write them) but that are in the log. */
  failedButPresent: { value: string; partition: number; offsets: number[] }[];
  /** Records in the final log that no producer ever sent. */
  unexpected: { partition: number; offset: number; value: string }[];
  /** Consumer reads whose offsets were not dense and increasing (per consumer and partition). */
  nonMonotonicReads: { process: string; partition: number; expected: number; got: number; kind: 'gap' | 'backwards'; time: number }[];
  /** Values a consumer read that are not at that offset in the final log (a read above a HW that later shrank). */
  readsNotInFinal: { process: string; partition: number; offset: number; value: string; finalValue: string | null; time: number }[];
  /** High watermarks a consumer was told that the final log does not reach. */
  highWatermarkRegressions: { partition: number; highWatermark: number; finalHighWatermark: number }[];
  /** The final log does not start at offset 0 (nothing here deletes records). */
  logStartMoved: { partition: number; logStartOffset: number }[];
  /**
   * ISR expansions that took in a broker not registered in ZooKeeper (its session gone): Kafka lets only
   * live brokers join an ISR (KIP-841), so acks=all would wait on a replica that cannot follow. Reported,
   * not counted in `valid` (it costs availability, not acknowledged data).
   */
  isrWithUnregisteredBroker: { partition: number; time: number; isr: number[]; broker: number; /** /brokers/ids as last polled */ registered: number[]; zkVersion: number }[];
  /** Leader changes seen in the partition state znodes; the new leader must come from the previous ISR. */
  elections: { checked: number; unverified: number; violations: ElectionViolation[] };
  faults: FaultWindow[];
  /** Longest time without an acknowledged write over the whole run, after the first ack. */
  longestAckGapMs: number;
  /** Errors seen by producers and consumers, by name. */
  errors: { send: Record<string, number>; poll: Record<string, number> };
}

export interface CheckOptions {
  /** Time after a heal still counted as part of the fault's window. Default 15000 (or until the next fault). */
  settleMs?: number;
}

const push = <K, V>(m: Map<K, V[]>, k: K, v: V) => {
  const list = m.get(k);
  if (list) list.push(v);
  else m.set(k, [v]);
};

function countBy(list: (string | undefined)[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const x of list) if (x !== undefined) out[x] = (out[x] ?? 0) + 1;
  return out;
}

/**
 * Longest interval between consecutive times that overlaps [from, to]; `times` sorted. `runEnd` closes an open
 * gap. Gaps are cut at `cutAt` (the next fault's start): a gap that opens just before the next fault is that
 * fault's, and is not counted twice.
 */
export function longestGapOverlapping(times: readonly number[], from: number, to: number, runEnd: number, cutAt = Infinity): number {
  let best = 0;
  // The last ack before the window opens the first gap; no ack before it: the window's start does.
  let i = 0;
  while (i < times.length && times[i]! <= from) i++;
  let prev = i > 0 ? times[i - 1]! : from;
  for (; i < times.length; i++) {
    const t = times[i]!;
    best = Math.max(best, Math.min(t, cutAt) - prev);
    prev = t;
    if (t >= to) return best;
  }
  return Math.max(best, Math.min(runEnd, cutAt) - prev);
}

export function check(events: readonly HistoryEvent[], final: FinalLog, options: CheckOptions = {}): CheckResult {
  const settleMs = options.settleMs ?? 15_000;
  const sends = events.filter((e): e is SendEvent => e.f === 'send');
  const polls = events.filter((e): e is PollEvent => e.f === 'poll');
  const runEnd = events.length > 0 ? events[events.length - 1]!.time : 0;

  // ---- writes -------------------------------------------------------------------------------------
  const attempts = new Map<string, number>();
  const outcomes = new Map<string, SendEvent[]>();
  const acked = new Map<string, SendEvent>();
  for (const e of sends) {
    if (e.type === 'invoke') attempts.set(e.value, (attempts.get(e.value) ?? 0) + 1);
    else push(outcomes, e.value, e);
    if (e.type === 'ok' && !acked.has(e.value)) acked.set(e.value, e);
  }
  const finalByPartition = new Map<number, FinalPartition>(final.partitions.map((p) => [p.partition, p]));
  /** partition -> value -> offsets in the final log */
  const where = new Map<number, Map<string, number[]>>();
  const valueAt = new Map<number, Map<number, string>>();
  for (const p of final.partitions) {
    const byValue = new Map<string, number[]>();
    const byOffset = new Map<number, string>();
    for (const [offset, value] of p.records) {
      push(byValue, value, offset);
      byOffset.set(offset, value);
    }
    where.set(p.partition, byValue);
    valueAt.set(p.partition, byOffset);
  }
  const lost: CheckResult['lost'] = [];
  const ackOffsetMismatch: CheckResult['ackOffsetMismatch'] = [];
  for (const [value, ok] of acked) {
    const offsets = where.get(ok.partition)?.get(value);
    if (!offsets) lost.push({ value, partition: ok.partition, offset: ok.offset ?? -1 });
    else if (ok.offset !== undefined && !offsets.includes(ok.offset)) ackOffsetMismatch.push({ value, partition: ok.partition, ackedOffset: ok.offset, finalOffsets: offsets });
  }
  const sentPartition = new Map<string, number>();
  for (const e of sends) if (e.type === 'invoke') sentPartition.set(e.value, e.partition);
  const unexplainedDuplicates: CheckResult['unexplainedDuplicates'] = [];
  let explainedDuplicates = 0;
  const failedButPresent: CheckResult['failedButPresent'] = [];
  const unexpected: CheckResult['unexpected'] = [];
  for (const [partition, byValue] of where) {
    for (const [value, offsets] of byValue) {
      const n = attempts.get(value) ?? 0;
      if (n === 0 || sentPartition.get(value) !== partition) {
        for (const offset of offsets) unexpected.push({ partition, offset, value });
        continue;
      }
      if (offsets.length > 1) {
        if (n > 1) explainedDuplicates++;
        else unexplainedDuplicates.push({ value, partition, offsets, attempts: n });
      }
      const results = outcomes.get(value) ?? [];
      if (results.length === n && results.every((r) => r.type === 'fail')) failedButPresent.push({ value, partition, offsets });
    }
  }

  // ---- reads --------------------------------------------------------------------------------------
  const nonMonotonicReads: CheckResult['nonMonotonicReads'] = [];
  const readsNotInFinal: CheckResult['readsNotInFinal'] = [];
  const nextExpected = new Map<string, number>();
  const maxHw = new Map<number, number>();
  let recordsRead = 0;
  for (const e of polls) {
    if (e.type !== 'ok') continue;
    if (e.highWatermark !== undefined) maxHw.set(e.partition, Math.max(maxHw.get(e.partition) ?? -1, e.highWatermark));
    const key = `${e.process}/${e.partition}`;
    for (const [offset, value] of e.records ?? []) {
      recordsRead++;
      const expected = nextExpected.get(key) ?? e.fetchOffset;
      if (offset !== expected) nonMonotonicReads.push({ process: e.process, partition: e.partition, expected, got: offset, kind: offset > expected ? 'gap' : 'backwards', time: e.time });
      nextExpected.set(key, offset + 1);
      const finalValue = valueAt.get(e.partition)?.get(offset) ?? null;
      if (finalValue !== value) readsNotInFinal.push({ process: e.process, partition: e.partition, offset, value, finalValue, time: e.time });
    }
  }
  const highWatermarkRegressions: CheckResult['highWatermarkRegressions'] = [];
  for (const [partition, hw] of maxHw) {
    const f = finalByPartition.get(partition);
    if (!f || hw > f.highWatermark) highWatermarkRegressions.push({ partition, highWatermark: hw, finalHighWatermark: f?.highWatermark ?? -1 });
  }
  const logStartMoved = final.partitions.filter((p) => p.logStartOffset !== 0).map((p) => ({ partition: p.partition, logStartOffset: p.logStartOffset }));

  // ---- elections and ISR membership -------------------------------------------------------------
  const elections = checkElections(events.filter((e): e is StateEvent => e.f === 'partition-state'));
  const isrWithUnregisteredBroker = checkIsrMembers(events);

  // ---- availability -------------------------------------------------------------------------------
  const okTimes = sends.filter((e) => e.type === 'ok').map((e) => e.time).sort((a, b) => a - b);
  const okByPartition = new Map<number, number[]>();
  for (const e of sends) if (e.type === 'ok') push(okByPartition, e.partition, e.time);
  for (const list of okByPartition.values()) list.sort((a, b) => a - b);
  const partitions = [...new Set([...final.partitions.map((p) => p.partition), ...okByPartition.keys()])].sort((a, b) => a - b);
  const faultEvents = events.filter((e): e is FaultEvent => e.f === 'fault-start' || e.f === 'fault-end');
  const starts = faultEvents.filter((e) => e.f === 'fault-start').sort((a, b) => a.time - b.time);
  const faults: FaultWindow[] = starts.map((s, i) => {
    const endEvent = faultEvents.find((e) => e.f === 'fault-end' && e.id === s.id);
    const end = endEvent?.time ?? runEnd;
    const nextStart = starts[i + 1]?.time ?? Infinity;
    const windowEnd = Math.min(end + settleMs, nextStart, runEnd);
    let worst = 0;
    let worstPartition: number | null = null;
    let firstAckAfterHealMs: number | null = 0;
    for (const p of partitions) {
      const times = okByPartition.get(p) ?? [];
      const gap = longestGapOverlapping(times, s.time, windowEnd, runEnd, nextStart);
      if (gap > worst) {
        worst = gap;
        worstPartition = p;
      }
      const first = times.find((t) => t >= end);
      if (first === undefined) firstAckAfterHealMs = null;
      else if (firstAckAfterHealMs !== null) firstAckAfterHealMs = Math.max(firstAckAfterHealMs, first - end);
    }
    return {
      id: s.id,
      fault: s.fault,
      detail: s.detail,
      start: s.time,
      end,
      longestAckGapMs: round(longestGapOverlapping(okTimes, s.time, windowEnd, runEnd, nextStart)),
      worstPartitionAckGapMs: round(worst),
      worstPartition,
      firstAckAfterHealMs: firstAckAfterHealMs === null ? null : round(firstAckAfterHealMs),
      acksDuring: okTimes.filter((t) => t >= s.time && t <= end).length,
    };
  });
  let longestAckGapMs = 0;
  for (let i = 1; i < okTimes.length; i++) longestAckGapMs = Math.max(longestAckGapMs, okTimes[i]! - okTimes[i - 1]!);

  const result: CheckResult = {
    valid: false,
    counts: {
      sendInvokes: sends.filter((e) => e.type === 'invoke').length,
      sendOk: sends.filter((e) => e.type === 'ok').length,
      sendFail: sends.filter((e) => e.type === 'fail').length,
      sendInfo: sends.filter((e) => e.type === 'info').length,
      valuesAcked: acked.size,
      polls: polls.filter((e) => e.type !== 'invoke').length,
      recordsRead,
      finalRecords: final.partitions.reduce((n, p) => n + p.records.length, 0),
    },
    lost,
    ackOffsetMismatch,
    unexplainedDuplicates,
    explainedDuplicates,
    failedButPresent,
    unexpected,
    nonMonotonicReads,
    readsNotInFinal,
    highWatermarkRegressions,
    logStartMoved,
    isrWithUnregisteredBroker,
    elections,
    faults,
    longestAckGapMs: round(longestAckGapMs),
    errors: {
      send: countBy(sends.filter((e) => e.type === 'fail' || e.type === 'info').map((e) => `${e.type}:${e.error}`)),
      poll: countBy(polls.filter((e) => e.type === 'fail' || e.type === 'info').map((e) => `${e.type}:${e.error}`)),
    },
  };
  result.valid = anomalies(result).length === 0;
  return result;
}

/**
 * Every change of leader seen in a partition's state znode: when the znode version shows nothing was
 * missed in between (version + 1), the new leader must be in the ISR of the state before. With a gap the
 * transition is counted as unverified, never guessed.
 */
export function checkElections(states: readonly StateEvent[]): CheckResult['elections'] {
  const byPartition = new Map<number, StateEvent[]>();
  for (const s of states) push(byPartition, s.partition, s);
  let checked = 0;
  let unverified = 0;
  const violations: ElectionViolation[] = [];
  for (const [partition, list] of byPartition) {
    const seen = [...list].sort((a, b) => a.zkVersion - b.zkVersion || a.time - b.time);
    for (let i = 1; i < seen.length; i++) {
      const from = seen[i - 1]!;
      const to = seen[i]!;
      if (to.zkVersion === from.zkVersion || to.leader < 0 || to.leader === from.leader) continue;
      if (to.zkVersion !== from.zkVersion + 1) {
        unverified++;
        continue;
      }
      checked++;
      if (!from.isr.includes(to.leader)) {
        const view = (s: StateEvent) => ({ leader: s.leader, isr: s.isr, leaderEpoch: s.leaderEpoch, zkVersion: s.zkVersion });
        violations.push({ partition, time: to.time, from: view(from), to: view(to) });
      }
    }
  }
  return { checked, unverified, violations };
}

/**
 * A broker that joined an ISR while it was not registered in ZooKeeper, by ZooKeeper's transaction order
 * (the state watcher compares the state's mzxid with the registration's czxid when the ISR grows).
 */
export function checkIsrMembers(events: readonly HistoryEvent[]): CheckResult['isrWithUnregisteredBroker'] {
  const out: CheckResult['isrWithUnregisteredBroker'] = [];
  let registered: number[] = [];
  for (const e of events) {
    if (e.f === 'brokers') registered = e.brokerIds;
    if (e.f !== 'partition-state') continue;
    for (const broker of e.joinedUnregistered ?? []) out.push({ partition: e.partition, time: e.time, isr: e.isr, broker, registered, zkVersion: e.zkVersion });
  }
  return out;
}

/** One line per kind of safety anomaly found (empty when the run is valid). */
export function anomalies(r: CheckResult): string[] {
  const out: string[] = [];
  const add = (n: number, what: string, sample: unknown[]) => {
    if (n > 0) out.push(`${n} ${what}, e.g. ${JSON.stringify(sample.slice(0, 3))}`);
  };
  add(r.lost.length, 'acknowledged writes lost', r.lost);
  add(r.ackOffsetMismatch.length, 'acknowledged writes at another offset than acknowledged', r.ackOffsetMismatch);
  add(r.unexplainedDuplicates.length, 'values at two offsets without a retry', r.unexplainedDuplicates);
  add(r.failedButPresent.length, 'writes that failed definitely but are in the log', r.failedButPresent);
  add(r.unexpected.length, 'records nobody wrote', r.unexpected);
  add(r.nonMonotonicReads.length, 'consumer reads with offsets not dense and increasing', r.nonMonotonicReads);
  add(r.readsNotInFinal.length, 'values read that are not in the final log at that offset', r.readsNotInFinal);
  add(r.highWatermarkRegressions.length, 'high watermarks seen above the final log end', r.highWatermarkRegressions);
  add(r.logStartMoved.length, 'partitions whose log start moved', r.logStartMoved);
  add(r.elections.violations.length, 'leaders elected from outside the previous ISR', r.elections.violations);
  return out;
}

function round(ms: number): number {
  return Math.round(ms);
}

/** A short human summary of a result (one fault per line). */
export function summarize(r: CheckResult): string {
  const c = r.counts;
  const lines = [
    `writes: ${c.sendInvokes} invoked, ${c.sendOk} ok, ${c.sendFail} fail, ${c.sendInfo} info; ${c.valuesAcked} values acknowledged; ` +
      `reads: ${c.recordsRead} records in ${c.polls} polls; final log: ${c.finalRecords} records`,
    `lost ${r.lost.length}, unexplained duplicates ${r.unexplainedDuplicates.length} (explained ${r.explainedDuplicates}), ` +
      `non-monotonic reads ${r.nonMonotonicReads.length}, reads not in final log ${r.readsNotInFinal.length}, ` +
      `HW regressions ${r.highWatermarkRegressions.length}; elections checked ${r.elections.checked}, unverified ${r.elections.unverified}, ` +
      `violations ${r.elections.violations.length}; ISR expansions with an unregistered broker ${r.isrWithUnregisteredBroker.length}`,
    ...r.faults.map(
      (f) =>
        `fault ${f.id} ${f.fault} (${f.detail}) ${(f.start / 1000).toFixed(1)}s-${(f.end / 1000).toFixed(1)}s: longest ack gap ${f.longestAckGapMs} ms, ` +
        `worst partition ${f.worstPartition ?? '-'} ${f.worstPartitionAckGapMs} ms, first ack on every partition ${f.firstAckAfterHealMs ?? 'never'} ms after heal`,
    ),
  ];
  const bad = anomalies(r);
  if (bad.length > 0) lines.push('ANOMALIES:', ...bad.map((b) => `  ${b}`));
  return lines.join('\n');
}
