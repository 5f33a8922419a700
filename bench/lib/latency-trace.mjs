// Where an end-to-end record's time goes: a tcpdump capture of the loopback traffic to the brokers, joined with the
// bench's own send and receive times of each record. The kernel stamps every packet, so each record's path splits
// into the stages between its packets (the clocks agree: pcap stamps and performance.timeOrigin are both the
// machine's realtime clock):
//   send      the bench calls send()                      -> its Produce request is on the wire
//     queued  (part of send) the time it waited for the answer to the request before it on its connection: without
//             idempotence a partition has one Produce in flight, so a record sent while the previous one is
//             still being replicated waits for that ack
//   leader    Produce request on the wire                  -> the first Fetch answer carrying the record to a follower
//   replicate that first Fetch answer                      -> the later follower's next Fetch (its ack: the HW needs both)
//   hw        the later follower's next Fetch               -> the consumer's Fetch answer carrying the record
//   receive   the consumer's Fetch answer on the wire      -> the record comes out of the bench's consume()
// A stage holds both the work and the waiting for a core of the process that owns it (and, for leader, a follower
// whose Fetch was not parked at the leader yet). Needs tcpdump (Debian: tcpdump) and root.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { pct, sleep } from './bench.mjs';

export const STAGES = ['send', 'leader', 'replicate', 'hw', 'receive'];

/** Starts tcpdump on lo for the given broker ports; stop() ends it once its file is complete. */
export async function startCapture(ports, file) {
  const filter = `tcp and (${ports.map((p) => `port ${p}`).join(' or ')})`;
  const proc = spawn('tcpdump', ['-i', 'lo', '-s', '2048', '--time-stamp-precision=nano', '-U', '-w', file, filter], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  proc.stderr.on('data', (d) => (stderr += d));
  const exited = new Promise((resolve) => proc.on('close', resolve));
  for (let i = 0; i < 50 && !/listening on/.test(stderr); i++) await sleep(100);
  if (!/listening on/.test(stderr)) {
    proc.kill();
    throw new Error(`tcpdump did not start: ${stderr.trim() || 'no output'}`);
  }
  return {
    async stop() {
      proc.kill('SIGINT');
      await exited;
    },
  };
}

/** Realtime milliseconds with sub-millisecond precision, on the clock tcpdump stamps packets with. */
export const realtimeMs = () => performance.timeOrigin + performance.now();

/** The TCP payloads of a pcap file (Ethernet-framed loopback, as Linux's lo captures), with their stamps. */
function* payloads(pcap) {
  const nano = pcap.readUInt32LE(0) === 0xa1b23c4d;
  for (let off = 24; off + 16 <= pcap.length; ) {
    const t = pcap.readUInt32LE(off) * 1000 + pcap.readUInt32LE(off + 4) / (nano ? 1e6 : 1e3);
    const incl = pcap.readUInt32LE(off + 8);
    const d = pcap.subarray(off + 16, off + 16 + incl);
    off += 16 + incl;
    if (d.length < 34 || d.readUInt16BE(12) !== 0x0800 || d[23] !== 6) continue; // IPv4 TCP only
    const ihl = (d[14] & 15) * 4;
    const tcp = 14 + ihl;
    const dataOffset = (d[tcp + 12] >> 4) * 4;
    if (d.readUInt16BE(16) - ihl - dataOffset <= 0) continue; // pure ACKs
    yield { t, from: d.readUInt16BE(tcp), to: d.readUInt16BE(tcp + 2), payload: d.subarray(tcp + dataOffset) };
  }
}

/**
 * Splits each traced record's end-to-end time into STAGES. records: [value, sentAt, receivedAt] (realtimeMs),
 * values `lat-<i>`. brokerPorts: the brokers' listener ports. Returns one row per record found whole in the capture.
 */
export function traceRecords(pcapFile, records, brokerPorts) {
  const brokers = new Set(brokerPorts);
  const clientIdOf = new Map(); // "clientPort>brokerPort" -> the client id of the connection's first request
  const flows = new Map(); // "from>to" -> packets in capture order
  const seen = new Map(); // value -> packets carrying it, first per flow
  const valuePattern = /lat-(\d+)/g;
  for (const p of payloads(readFileSync(pcapFile))) {
    const flow = `${p.from}>${p.to}`;
    let list = flows.get(flow);
    if (!list) flows.set(flow, (list = []));
    list.push(p);
    // A whole request in one packet: size, api key, version, correlation id, then the client id (int16 length, bytes).
    // Any request of a connection will do: the replica fetchers' connections are older than the capture.
    if (brokers.has(p.to) && !clientIdOf.has(flow) && p.payload.length >= 14 && p.payload.readInt32BE(0) === p.payload.length - 4) {
      const n = p.payload.readInt16BE(12);
      if (n > 0 && 14 + n <= p.payload.length) clientIdOf.set(flow, p.payload.toString('latin1', 14, 14 + n));
    }
    const text = p.payload.toString('latin1');
    valuePattern.lastIndex = 0;
    for (let m; (m = valuePattern.exec(text)); ) {
      let hits = seen.get(m[0]);
      if (!hits) seen.set(m[0], (hits = []));
      if (!hits.some((h) => h.from === p.from && h.to === p.to)) hits.push(p);
    }
  }
  /** The index of the first packet of a flow stamped after t. */
  const after = (list, t) => {
    let lo = 0;
    for (let hi = list.length; lo < hi; ) {
      const mid = (lo + hi) >> 1;
      if (list[mid].t <= t) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const nextOn = (flow, t) => {
    const list = flows.get(flow) ?? [];
    return list[after(list, t)];
  };
  const previousOn = (flow, t) => {
    const list = flows.get(flow) ?? [];
    return list[after(list, t - 1e-9) - 1];
  };
  const rows = [];
  for (const [value, sentAt, receivedAt] of records) {
    const hits = seen.get(value) ?? [];
    // Only a Produce request carries the value towards a broker; from the leader it goes to followers and the consumer.
    const produce = hits.find((h) => brokers.has(h.to));
    if (!produce) continue;
    const leaderPort = produce.to;
    const isFollower = (h) => /fetcher/.test(clientIdOf.get(`${h.to}>${h.from}`) ?? '');
    const toFollowers = hits.filter((h) => h.from === leaderPort && isFollower(h));
    const toConsumer = hits.find((h) => h.from === leaderPort && !isFollower(h));
    const followerAcks = toFollowers.map((h) => nextOn(`${h.to}>${h.from}`, h.t));
    if (!toConsumer || toFollowers.length < 2 || followerAcks.some((a) => !a)) continue;
    const firstToFollower = Math.min(...toFollowers.map((h) => h.t));
    const lastAck = Math.max(...followerAcks.map((a) => a.t));
    const answerBefore = previousOn(`${leaderPort}>${produce.from}`, produce.t);
    const send = produce.t - sentAt;
    rows.push({
      value, e2e: receivedAt - sentAt,
      send, queued: answerBefore ? Math.min(send, Math.max(0, answerBefore.t - sentAt)) : 0, leader: firstToFollower - produce.t, replicate: lastAck - firstToFollower,
      hw: toConsumer.t - lastAck, receive: receivedAt - toConsumer.t,
    });
  }
  return rows;
}

/** Percentiles of e2e and of each stage over the rows, and the mean stages of the slowest 1 % (the p99 tail). */
export function summarizeTrace(rows) {
  if (rows.length === 0) return null;
  const keys = ['e2e', 'queued', ...STAGES];
  const percentiles = {};
  for (const k of keys) {
    const xs = rows.map((r) => r[k]);
    percentiles[k] = { p50: pct(xs, 50), p99: pct(xs, 99) };
  }
  const slowest = [...rows].sort((a, b) => a.e2e - b.e2e).slice(Math.floor(rows.length * 0.99));
  const slowestMean = Object.fromEntries(keys.map((k) => [k, slowest.reduce((s, r) => s + r[k], 0) / slowest.length]));
  return { n: rows.length, percentiles, slowest: { n: slowest.length, mean: slowestMean } };
}

/** Table lines for a summary: one line per statistic, one column per stage (ms). */
export function traceTable(title, s) {
  const keys = ['e2e', 'send', 'queued', ...STAGES.slice(1)];
  const line = (label, values) => `    ${label.padEnd(22)}${values.map((v) => v.toFixed(2).padStart(10)).join('')}`;
  return [
    `  ${title} (${s.n} records traced)`,
    `    ${''.padEnd(22)}${keys.map((k) => k.padStart(10)).join('')}`,
    line('p50', keys.map((k) => s.percentiles[k].p50)),
    line('p99', keys.map((k) => s.percentiles[k].p99)),
    line(`slowest 1 % (mean)`, keys.map((k) => s.slowest.mean[k])),
  ].join('\n');
}
