import { get } from '../api.js';
import { lineChart } from '../chart.js';
import { fill, h, table } from '../dom.js';
import { compact, formatBytes, formatNumber, formatRate } from '../format.js';
import { errorAlert, type PageContext } from '../page.js';
import { RateTracker, SeriesStore } from '../series.js';
import type { BrokerTraffic, ClusterTraffic } from '../types.js';

const SAMPLE_MS = 2000;
const WINDOW_MS = 5 * 60_000;
const METRICS = [
  { key: 'bytesIn', title: 'Bytes in per second', format: (v: number) => `${formatBytes(v)}/s`, axis: (v: number) => `${compact(v)}B` },
  { key: 'bytesOut', title: 'Bytes out per second (to consumers)', format: (v: number) => `${formatBytes(v)}/s`, axis: (v: number) => `${compact(v)}B` },
  { key: 'messagesIn', title: 'Messages in per second', format: (v: number) => formatRate(v), axis: compact },
] as const;
type MetricKey = (typeof METRICS)[number]['key'];

/** Rates per broker and metric, kept for the tab's session so the charts go on where they were. */
const series = new SeriesStore(WINDOW_MS);
const trackers = new Map<string, RateTracker>();
let latest: BrokerTraffic[] = [];

function sample(traffic: ClusterTraffic, now: number): void {
  latest = traffic.brokers;
  for (const b of traffic.brokers) {
    if (b.timestampMs === null) continue;
    for (const m of METRICS) {
      const counter = b[m.key];
      if (counter === null) continue;
      const key = `${m.key}\u0000${b.brokerId}`;
      const tracker = trackers.get(key) ?? new RateTracker();
      trackers.set(key, tracker);
      const rate = tracker.sample(b.timestampMs, counter);
      if (rate !== null) series.get(key).add(now, rate);
    }
  }
}

/** A byte total in binary units; the exact count on hover. */
function exactBytes(testId: string, n: number | null): HTMLElement {
  return h('span', { 'data-testid': testId, title: n === null ? null : `${formatNumber(n)} bytes` }, formatBytes(n));
}

/** Bytes in/out and messages in per broker, from each broker's own counters (GET /v1/metrics/traffic). */
export async function metricsPage(root: HTMLElement, ctx: PageContext): Promise<void> {
  const status = h('div');
  const charts = h('div', { class: 'grid2' });
  const totals = h('div');
  fill(root, h('h1', null, 'Live charts', h('span', { class: 'sub' }, 'each broker\'s own counters, sampled every 2 s; up to the last 5 minutes')), status, charts, h('h2', null, 'Since each broker started'), totals);
  const render = () => {
    fill(
      charts,
      METRICS.map((m) =>
        lineChart(
          `chart-${m.key}`,
          m.title,
          [...series.withPrefix(`${m.key}\u0000`)].sort(([a], [b]) => Number(a.split('\u0000')[1]) - Number(b.split('\u0000')[1])).map(([k, s]) => ({ name: `broker ${k.split('\u0000')[1]}`, points: s.points })),
          { windowMs: WINDOW_MS, minWindowMs: 60_000, yFormat: m.axis },
        ),
      ),
    );
    const rate = (b: BrokerTraffic, key: MetricKey) => series.get(`${key}\u0000${b.brokerId}`).last?.v ?? null;
    fill(
      totals,
      table('traffic', [
        { title: 'Broker', cell: (b) => b.brokerId, num: true },
        { title: 'Bytes in', cell: (b) => exactBytes(`bytes-in-${b.brokerId}`, b.bytesIn), num: true },
        { title: 'Bytes out', cell: (b) => exactBytes(`bytes-out-${b.brokerId}`, b.bytesOut), num: true },
        { title: 'Messages in', cell: (b) => h('span', { 'data-testid': `messages-in-${b.brokerId}` }, formatNumber(b.messagesIn)), num: true },
        { title: 'Replication bytes out', cell: (b) => formatBytes(b.replicationBytesOut), num: true },
        { title: 'Now in', cell: (b) => METRICS[0].format(rate(b, 'bytesIn') ?? 0), num: true },
        { title: 'Now out', cell: (b) => METRICS[1].format(rate(b, 'bytesOut') ?? 0), num: true },
        { title: 'Now messages', cell: (b) => METRICS[2].format(rate(b, 'messagesIn') ?? 0), num: true },
        { title: 'Problem', cell: (b) => b.error ?? '' },
      ], latest),
    );
  };
  const tick = async () => {
    try {
      sample(await get<ClusterTraffic>('/v1/metrics/traffic', ctx.signal), Date.now());
      fill(status);
    } catch (err) {
      if (!ctx.signal.aborted) fill(status, errorAlert(err, 'Traffic'));
    }
    if (!ctx.signal.aborted) render();
  };
  await tick();
  ctx.every(SAMPLE_MS, tick);
}
