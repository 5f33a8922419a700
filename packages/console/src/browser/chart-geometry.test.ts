import { describe, expect, it } from 'vitest';
import { agoLabel, chartGeometry, niceCeil, visibleWindow, yAxisMax } from './chart-geometry.js';
import { RateTracker, Series, SeriesStore } from './series.js';

describe('chart geometry', () => {
  it('rounds the y axis up to 1, 2, 2.5 or 5 × 10^k per tick', () => {
    expect([niceCeil(0), niceCeil(0.3), niceCeil(3), niceCeil(7), niceCeil(23)]).toEqual([1, 0.5, 5, 10, 25]);
    expect(yAxisMax(0)).toBe(4);
    expect(yAxisMax(90)).toBe(100);
    expect(yAxisMax(1234)).toBe(2000);
  });

  it('maps points of the window onto the plot; older points are left out', () => {
    const now = 1_000_000;
    const g = chartGeometry(
      [{ name: 'a', points: [{ t: now - 120_000, v: 5 }, { t: now - 60_000, v: 0 }, { t: now, v: 10 }] }],
      { width: 400, height: 200, now, windowMs: 60_000, yFormat: String },
    );
    expect(g.plot).toEqual({ left: 54, top: 8, right: 388, bottom: 178 });
    expect(g.yMax).toBe(10);
    expect(g.lines[0]!.d).toBe('M54 178 L388 8');
    expect(g.lines[0]!.last).toEqual({ x: 388, y: 8 });
    expect(g.yTicks.map((t) => t.label)).toEqual(['0', '2.5', '5', '7.5', '10']);
    expect(g.xTicks.map((t) => t.label)).toEqual(['-1m', '-45s', '-30s', '-15s', 'now']);
    expect(g.xTicks[0]!.x).toBe(54);
    expect(chartGeometry([{ name: 'empty', points: [] }], { width: 400, height: 200, now, windowMs: 300_000, yFormat: String }).lines[0]!.d).toBe('');
  });

  it('with a minimum window, spans only as far back as the samples go, up to the full window', () => {
    const now = 10_000_000;
    const frame = { width: 400, height: 200, now, windowMs: 300_000, minWindowMs: 60_000, yFormat: String };
    const since = (ms: number) => [{ name: 'a', points: [{ t: now - ms, v: 1 }, { t: now, v: 2 }] }];
    expect(visibleWindow(since(10_000), frame)).toBe(60_000);
    expect(visibleWindow(since(100_000), frame)).toBe(100_000);
    expect(visibleWindow([{ name: 'b', points: [{ t: now - 900_000, v: 1 }, { t: now - 200_000, v: 1 }] }], frame)).toBe(200_000); // only points inside windowMs count
    expect(visibleWindow(since(300_000), frame)).toBe(300_000);
    expect(visibleWindow([], frame)).toBe(60_000);
    expect(visibleWindow(since(10_000), { now, windowMs: 300_000 })).toBe(300_000);
    const g = chartGeometry(since(100_000), frame);
    expect(g.lines[0]!.d).toBe('M54 93 L388 8'); // the oldest point at the left edge
    expect(g.xTicks.map((t) => t.label)).toEqual(['-1m30s', '-1m', '-30s', 'now']);
    const { minWindowMs: _min, ...fixed } = frame;
    expect(chartGeometry(since(10_000), fixed).xTicks.map((t) => t.label)).toEqual(['-5m', '-4m', '-3m', '-2m', '-1m', 'now']);
  });

  it('labels times ago', () => {
    expect([0, 15, 60, 90, 600].map(agoLabel)).toEqual(['now', '-15s', '-1m', '-1m30s', '-10m']);
  });
});

describe('sampled series', () => {
  it('keeps a window of points', () => {
    const s = new Series(1000);
    for (const t of [0, 400, 800, 1200, 1600]) s.add(t, t);
    expect(s.points.map((p) => p.t)).toEqual([800, 1200, 1600]);
    expect(s.last).toEqual({ t: 1600, v: 1600 });
  });

  it('turns counters into rates per second, starting over when a counter goes back', () => {
    const r = new RateTracker();
    expect(r.sample(0, 100)).toBeNull();
    expect(r.sample(2000, 300)).toBe(100);
    expect(r.sample(3000, 50)).toBeNull(); // the broker restarted
    expect(r.sample(4000, 150)).toBe(100);
    expect(r.sample(4000, 160)).toBeNull(); // no time passed
  });

  it('finds series by key prefix', () => {
    const store = new SeriesStore(60_000);
    store.get('lag\u0000g\u0000t1').add(1, 1);
    store.get('lag\u0000g\u0000t2').add(1, 2);
    store.get('lag\u0000h\u0000t1').add(1, 3);
    expect([...store.withPrefix('lag\u0000g\u0000').keys()]).toEqual(['lag\u0000g\u0000t1', 'lag\u0000g\u0000t2']);
  });
});
