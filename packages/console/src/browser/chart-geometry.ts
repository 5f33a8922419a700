import type { Point } from './series.js';

/** Inline SVG line charts: the geometry (pure, unit-tested) apart from the DOM. */

export interface ChartSeries {
  name: string;
  points: readonly Point[];
}

export interface ChartFrame {
  width: number;
  height: number;
  /** The x axis spans [now - windowMs, now]; with minWindowMs, only as far back as the oldest point (at least minWindowMs), so a chart opened seconds ago is not a sliver at its right edge. */
  now: number;
  windowMs: number;
  minWindowMs?: number;
  yFormat: (v: number) => string;
}

export interface ChartGeometry {
  plot: { left: number; top: number; right: number; bottom: number };
  yMax: number;
  yTicks: { y: number; label: string }[];
  xTicks: { x: number; label: string }[];
  /** Each line's path and its newest point (marked, so that a series of one sample still shows). */
  lines: { name: string; d: string; last: { x: number; y: number } | null }[];
}

const MARGIN = { left: 54, right: 12, top: 8, bottom: 22 };
const Y_TICKS = 4;

/** The smallest 1, 2 or 5 × 10^k at or above v (1 for v <= 0). */
export function niceCeil(v: number): number {
  if (!(v > 0)) return 1;
  const exp = Math.pow(10, Math.floor(Math.log10(v)));
  for (const m of [1, 2, 2.5, 5, 10]) if (m * exp >= v) return m * exp;
  return 10 * exp;
}

/** A y maximum divisible into Y_TICKS steps of 1, 2 or 5 × 10^k. */
export function yAxisMax(max: number): number {
  return niceCeil(max / Y_TICKS) * Y_TICKS;
}

const round = (n: number) => Math.round(n * 10) / 10;

/** Tick steps of the x axis, in seconds: the smallest giving at most 5 intervals. */
const X_STEPS_S = [15, 30, 60, 120, 300, 600];

/** "-45s", "-2m", "-1m30s". */
export function agoLabel(seconds: number): string {
  if (seconds === 0) return 'now';
  const m = Math.floor(seconds / 60);
  const s = seconds % 60;
  return `-${m > 0 ? `${m}m` : ''}${s > 0 || m === 0 ? `${s}s` : ''}`;
}

/** The window shown: windowMs, or with minWindowMs only back to the oldest point in windowMs. */
export function visibleWindow(series: readonly ChartSeries[], f: Pick<ChartFrame, 'now' | 'windowMs' | 'minWindowMs'>): number {
  if (f.minWindowMs === undefined) return f.windowMs;
  const oldest = Math.min(f.now, ...series.flatMap((s) => s.points.filter((p) => p.t >= f.now - f.windowMs).map((p) => p.t)));
  return Math.min(f.windowMs, Math.max(f.minWindowMs, f.now - oldest));
}

export function chartGeometry(series: readonly ChartSeries[], f: ChartFrame): ChartGeometry {
  const plot = { left: MARGIN.left, top: MARGIN.top, right: f.width - MARGIN.right, bottom: f.height - MARGIN.bottom };
  const windowMs = visibleWindow(series, f);
  const t0 = f.now - windowMs;
  const max = Math.max(0, ...series.flatMap((s) => s.points.filter((p) => p.t >= t0).map((p) => p.v)));
  const yMax = yAxisMax(max);
  const x = (t: number) => plot.left + ((t - t0) / windowMs) * (plot.right - plot.left);
  const y = (v: number) => plot.bottom - (v / yMax) * (plot.bottom - plot.top);
  const yTicks = Array.from({ length: Y_TICKS + 1 }, (_, i) => ({ y: round(y((yMax * i) / Y_TICKS)), label: f.yFormat((yMax * i) / Y_TICKS) }));
  const seconds = windowMs / 1000;
  const step = X_STEPS_S.find((st) => seconds / st <= 5) ?? X_STEPS_S[X_STEPS_S.length - 1]!;
  const xTicks: ChartGeometry['xTicks'] = [];
  for (let sec = 0; sec <= seconds + 1e-9; sec += step) xTicks.push({ x: round(x(f.now - sec * 1000)), label: agoLabel(sec) });
  const lines = series.map((s) => {
    const pts = s.points.filter((p) => p.t >= t0 && p.t <= f.now);
    const d = pts.map((p, i) => `${i === 0 ? 'M' : 'L'}${round(x(p.t))} ${round(y(p.v))}`).join(' ');
    const newest = pts[pts.length - 1];
    return { name: s.name, d, last: newest ? { x: round(x(newest.t)), y: round(y(newest.v)) } : null };
  });
  return { plot, yMax, yTicks, xTicks: xTicks.reverse(), lines };
}
