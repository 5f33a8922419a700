/**
 * Buffers for log reads that go out in Fetch responses: a read takes a buffer of the next power-of-two size
 * (at least `minBytes`) and the socket server gives it back once the socket has flushed the response that
 * carries it, so a broker serving 8 MB fetches reuses a few buffers instead of allocating 8 MB (and faulting
 * its pages in) per fetch. A buffer that is never given back (a read whose response was not written) is
 * simply garbage collected; the pool only ever holds free buffers, up to `maxPooledBytes`.
 */
export class ReadBufferPool {
  readonly #minBytes: number;
  readonly #maxPooledBytes: number;
  /** Free buffers by size. */
  readonly #free = new Map<number, Buffer[]>();
  #pooledBytes = 0;
  /** Buffers handed out, by their memory: a view of one (a response chunk) finds its buffer. */
  readonly #leased = new WeakMap<ArrayBufferLike, Buffer>();
  stats = { acquired: 0, reused: 0, released: 0 };

  constructor(options: { minBytes?: number; maxPooledBytes?: number } = {}) {
    this.#minBytes = options.minBytes ?? 64 * 1024;
    this.#maxPooledBytes = options.maxPooledBytes ?? 64 * 1024 * 1024;
  }

  /** A buffer of at least `length` bytes (its first `length` bytes are the caller's); small reads are not pooled. */
  acquire(length: number): Buffer {
    if (length < this.#minBytes) return Buffer.allocUnsafe(length);
    let size = this.#minBytes;
    while (size < length) size *= 2;
    this.stats.acquired++;
    let buf = this.#free.get(size)?.pop();
    if (buf) {
      this.#pooledBytes -= size;
      this.stats.reused++;
    } else {
      // Its own memory (never Node's shared slab), so the memory identifies the buffer.
      buf = Buffer.allocUnsafeSlow(size);
    }
    this.#leased.set(buf.buffer, buf);
    return buf;
  }

  /**
   * `chunk` (a view of an acquired buffer, or any other buffer) is no longer read by anyone: its buffer is free
   * again. Only for chunks the socket has flushed; releasing a buffer twice, or one never acquired, does nothing.
   */
  release(chunk: Buffer): void {
    const buf = this.#leased.get(chunk.buffer);
    if (!buf) return;
    this.#leased.delete(chunk.buffer);
    this.stats.released++;
    if (this.#pooledBytes + buf.length > this.#maxPooledBytes) return;
    let list = this.#free.get(buf.length);
    if (!list) this.#free.set(buf.length, (list = []));
    list.push(buf);
    this.#pooledBytes += buf.length;
  }

  get pooledBytes(): number {
    return this.#pooledBytes;
  }
}
