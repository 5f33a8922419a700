/** Where progress goes: stderr, or a stand-in in tests. */
export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string): boolean;
}

/**
 * One status line for a long operation, redrawn in place on a terminal (stderr is a TTY) and cleared
 * when done; nothing at all when stderr is a pipe or a file, so scripts and logs see only results.
 * `log` prints a lasting line above it. The redraw timer is owned here and cleared by `done`.
 */
export class Progress {
  readonly enabled: boolean;
  readonly #stream: ProgressStream;
  readonly #started = Date.now();
  #status: () => string = () => '';
  #timer: NodeJS.Timeout | undefined;
  #shown = false;

  constructor(stream: ProgressStream = process.stderr, enabled = stream.isTTY === true) {
    this.#stream = stream;
    this.enabled = enabled;
  }

  /** Seconds since the operation started, for status lines. */
  get elapsed(): string {
    return `${((Date.now() - this.#started) / 1000).toFixed(0)} s`;
  }

  /** Shows `status()` now and every `everyMs` until done. */
  start(status: () => string, everyMs = 200): this {
    this.#status = status;
    if (!this.enabled) return this;
    this.#draw();
    this.#timer = setInterval(() => this.#draw(), everyMs);
    this.#timer.unref();
    return this;
  }

  /** A line that stays (printed above the status line on a terminal). */
  log(line: string): void {
    if (this.enabled && this.#shown) this.#stream.write('\r\x1b[2K');
    this.#stream.write(`${line}\n`);
    if (this.enabled && this.#timer) this.#draw();
  }

  /** Stops redrawing and removes the status line. */
  done(): void {
    clearInterval(this.#timer);
    this.#timer = undefined;
    if (this.enabled && this.#shown) this.#stream.write('\r\x1b[2K');
    this.#shown = false;
  }

  #draw(): void {
    const width = Math.max(20, (this.#stream.columns || 80) - 1);
    const text = this.#status();
    this.#stream.write(`\r\x1b[2K${text.length > width ? `${text.slice(0, width - 1)}…` : text}`);
    this.#shown = true;
  }
}

/** "1.2 MB of 3.4 MB (35%)" style sizes. */
export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KB`;
  if (n < 1024 ** 3) return `${(n / 1024 / 1024).toFixed(1)} MB`;
  return `${(n / 1024 ** 3).toFixed(2)} GB`;
}
