/** Time series sampled by the console (lag, traffic), kept for a window of minutes. */

export interface Point {
  t: number;
  v: number;
}

/** Points of one series, oldest first, dropped once older than `windowMs`. */
export class Series {
  readonly points: Point[] = [];
  constructor(readonly windowMs: number) {}

  add(t: number, v: number): void {
    this.points.push({ t, v });
    const cutoff = t - this.windowMs;
    let drop = 0;
    while (drop < this.points.length && this.points[drop]!.t < cutoff) drop++;
    if (drop > 0) this.points.splice(0, drop);
  }

  get last(): Point | undefined {
    return this.points[this.points.length - 1];
  }
}

/**
 * Turns a monotonically growing counter (bytes in, messages, sum of high watermarks) into a rate per
 * second. A counter that went down (a broker restarted, a topic was recreated) starts over: no
 * negative rate is ever reported.
 */
export class RateTracker {
  #last: Point | null = null;

  /** The rate since the previous sample, or null for the first sample and after a reset. */
  sample(t: number, counter: number): number | null {
    const prev = this.#last;
    this.#last = { t, v: counter };
    if (!prev || t <= prev.t || counter < prev.v) return null;
    return ((counter - prev.v) * 1000) / (t - prev.t);
  }
}

/** Named series kept across page visits (a tab's session), keyed like "lag:group:topic". */
export class SeriesStore {
  readonly #series = new Map<string, Series>();
  constructor(readonly windowMs: number) {}

  get(key: string): Series {
    let s = this.#series.get(key);
    if (!s) this.#series.set(key, (s = new Series(this.windowMs)));
    return s;
  }

  /** The series whose keys start with `prefix`, by key. */
  withPrefix(prefix: string): Map<string, Series> {
    return new Map([...this.#series].filter(([k]) => k.startsWith(prefix)));
  }
}
