import { chartGeometry, type ChartSeries } from './chart-geometry.js';
import { h, s } from './dom.js';

export interface LineChartOptions {
  windowMs: number;
  /** Shorter while the samples cover less (see ChartFrame.minWindowMs). */
  minWindowMs?: number;
  yFormat: (v: number) => string;
  width?: number;
  height?: number;
  now?: number;
}

/**
 * A line chart as inline SVG: one line per series (colours .s0-.s7), y from 0, x the last minutes
 * (or, with minWindowMs, as far back as the samples go).
 * Each line carries data-series / data-points / data-last so tests can read what is drawn.
 */
export function lineChart(testId: string, title: string, series: readonly ChartSeries[], opts: LineChartOptions): HTMLDivElement {
  const width = opts.width ?? 560;
  const height = opts.height ?? 190;
  const g = chartGeometry(series, { width, height, now: opts.now ?? Date.now(), windowMs: opts.windowMs, ...(opts.minWindowMs !== undefined ? { minWindowMs: opts.minWindowMs } : {}), yFormat: opts.yFormat });
  const hasData = series.some((x) => x.points.length > 0);
  const svg = s(
    'svg',
    { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': title },
    s('g', { class: 'grid' }, g.yTicks.map((t) => s('line', { x1: g.plot.left, x2: g.plot.right, y1: t.y, y2: t.y }))),
    s(
      'g',
      { class: 'axis' },
      g.yTicks.map((t) => s('text', { x: g.plot.left - 6, y: t.y + 3.5, 'text-anchor': 'end' }, t.label)),
      g.xTicks.map((t) => s('text', { x: t.x, y: height - 6, 'text-anchor': 'middle' }, t.label)),
    ),
    g.lines.map((l, i) => {
      const src = series[i]!;
      const last = src.points[src.points.length - 1];
      return s(
        'g',
        { class: `s${i % 8}` },
        s('path', { class: `line s${i % 8}`, d: l.d || 'M0 0', 'data-series': l.name, 'data-points': src.points.length, 'data-last': last ? String(last.v) : '' }),
        l.last ? s('circle', { class: 'dot', cx: l.last.x, cy: l.last.y, r: 2.5 }) : null,
      );
    }),
    hasData ? null : s('text', { class: 'empty', x: (g.plot.left + g.plot.right) / 2, y: (g.plot.top + g.plot.bottom) / 2, 'text-anchor': 'middle' }, 'collecting samples…'),
  );
  return h(
    'div',
    { class: 'chart', 'data-testid': testId },
    h('div', { class: 'title' }, title),
    svg,
    h('div', { class: 'legend' }, series.map((x, i) => h('span', { class: `s${i % 8}` }, x.name))),
  );
}
