import { StringDecoder } from 'node:string_decoder';

/**
 * Lines from a stream, handed out in batches as they arrive: a sender takes everything queued
 * (up to a cap) whenever it is ready, so a fast pipe gives big batches and a person typing gets
 * each line sent at once. The stream is paused while too much is queued.
 */
export class LineQueue {
  readonly #stream: NodeJS.ReadableStream;
  readonly #highWater: number;
  readonly #decoder = new StringDecoder('utf8');
  #partial = '';
  #lines: string[] = [];
  #head = 0;
  #ended = false;
  #error: Error | undefined;
  #wake: (() => void) | undefined;
  #paused = false;

  constructor(stream: NodeJS.ReadableStream, highWaterLines = 20_000) {
    this.#stream = stream;
    this.#highWater = highWaterLines;
    stream.on('data', (chunk: Buffer | string) => this.#onData(typeof chunk === 'string' ? chunk : this.#decoder.write(chunk)));
    stream.once('end', () => {
      const rest = this.#partial + this.#decoder.end();
      this.#partial = '';
      if (rest.length > 0) this.#lines.push(stripCr(rest));
      this.#ended = true;
      this.#notify();
    });
    stream.once('error', (error: Error) => {
      this.#error = error;
      this.#ended = true;
      this.#notify();
    });
  }

  /** The next lines (at least one, at most maxLines, about maxBytes), or null at the end of the stream. */
  async take(maxLines: number, maxBytes: number): Promise<string[] | null> {
    while (this.#head >= this.#lines.length) {
      if (this.#error) throw this.#error;
      if (this.#ended) return null;
      await new Promise<void>((resolve) => (this.#wake = resolve));
    }
    const out: string[] = [];
    let bytes = 0;
    while (this.#head < this.#lines.length && out.length < maxLines) {
      const line = this.#lines[this.#head]!;
      if (out.length > 0 && bytes + line.length > maxBytes) break;
      out.push(line);
      bytes += line.length;
      this.#head++;
    }
    if (this.#head >= this.#lines.length) {
      this.#lines = [];
      this.#head = 0;
    }
    if (this.#paused && this.#lines.length - this.#head < this.#highWater / 2) {
      this.#paused = false;
      this.#stream.resume();
    }
    return out;
  }

  /** Stops reading (the rest of the stream is ignored). */
  close(): void {
    this.#stream.pause();
    this.#ended = true;
    this.#notify();
  }

  #onData(text: string): void {
    const parts = (this.#partial + text).split('\n');
    this.#partial = parts.pop()!;
    for (const p of parts) this.#lines.push(stripCr(p));
    if (!this.#paused && this.#lines.length - this.#head >= this.#highWater) {
      this.#paused = true;
      this.#stream.pause();
    }
    if (parts.length > 0) this.#notify();
  }

  #notify(): void {
    const wake = this.#wake;
    this.#wake = undefined;
    wake?.();
  }
}

function stripCr(line: string): string {
  return line.endsWith('\r') ? line.slice(0, -1) : line;
}
