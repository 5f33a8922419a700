import { ErrorCode, GregorError } from '@gregor/common';

/** A frame's size prefix is negative or above the limit: the connection must be closed. */
export class FrameSizeError extends GregorError {
  readonly size: number;
  readonly maxFrameBytes: number;

  constructor(size: number, maxFrameBytes: number) {
    super(
      ErrorCode.INVALID_REQUEST,
      size < 0 ? `invalid negative frame size ${size}` : `frame of ${size} bytes exceeds the limit of ${maxFrameBytes} (socket.request.max.bytes)`,
    );
    this.size = size;
    this.maxFrameBytes = maxFrameBytes;
  }
}

export interface FrameReaderOptions {
  /** Largest accepted frame payload (Kafka's socket.request.max.bytes, default 100 MiB). */
  maxFrameBytes?: number;
  /**
   * Assemble frames that span chunks in one receive buffer reused across frames, saving an
   * allocation per frame. Such frames are then only valid until the next push(): use it only when
   * each frame is fully consumed (or copied) before more data is pushed. Default false.
   */
  reuseBuffer?: boolean;
  /**
   * Memory for a frame that spans chunks (without reuseBuffer), e.g. from a pool whose buffers the caller gives
   * back once it is done with the frame; `head` is the start of the frame as far as received. Returning
   * undefined (or leaving this out) allocates a fresh buffer of the frame's size.
   */
  allocate?: (size: number, head: Buffer) => Buffer | undefined;
}

const DEFAULT_MAX_FRAME_BYTES = 104_857_600;

/**
 * Splits a byte stream into size-prefixed frames (the payload after the i32 size).
 *
 * A frame lying entirely inside one chunk is returned as a view of that chunk (no copy). A frame
 * spanning chunks is kept as the pieces that arrived and copied once into a buffer of its exact
 * size when complete: memory follows the bytes received, never the size a header announces, so a
 * client announcing 100 MB and sending 10 bytes costs 10 bytes (socket.request.max.bytes enforced
 * while reading).
 */
export class FrameReader {
  #maxFrameBytes: number;
  readonly #reuseBuffer: boolean;
  readonly #allocate: ((size: number, head: Buffer) => Buffer | undefined) | undefined;
  readonly #sizeBytes = Buffer.alloc(4);
  #sizeFill = 0;
  /** The frame being assembled across chunks (reuseBuffer), or null between frames. */
  #frame: Buffer | null = null;
  /** Without reuseBuffer: the pieces of the frame being assembled, as received. */
  #pieces: Buffer[] | null = null;
  #frameSize = 0;
  #frameFill = 0;
  #receiveBuffer: Buffer | null = null;

  constructor(options: FrameReaderOptions = {}) {
    this.#maxFrameBytes = options.maxFrameBytes ?? DEFAULT_MAX_FRAME_BYTES;
    this.#reuseBuffer = options.reuseBuffer ?? false;
    this.#allocate = options.allocate;
  }

  /** Changes the limit for the frames that follow (a SASL listener allows 512 KiB until the client is authenticated). */
  setMaxFrameBytes(maxFrameBytes: number): void {
    this.#maxFrameBytes = maxFrameBytes;
  }

  /** Bytes received that belong to a frame not yet complete. */
  get bufferedBytes(): number {
    return this.#sizeFill + this.#frameFill;
  }

  /** Feeds one chunk; returns the frames it completed, in order. Throws FrameSizeError on a bad size. */
  push(chunk: Buffer): Buffer[] {
    const frames: Buffer[] = [];
    let pos = 0;
    const end = chunk.length;
    while (pos < end) {
      if (this.#frame === null && this.#pieces === null) {
        let size: number;
        if (this.#sizeFill === 0 && end - pos >= 4) {
          size = chunk.readInt32BE(pos);
          pos += 4;
          this.#checkSize(size);
          if (end - pos >= size) {
            frames.push(chunk.subarray(pos, pos + size));
            pos += size;
            continue;
          }
        } else {
          const n = Math.min(4 - this.#sizeFill, end - pos);
          chunk.copy(this.#sizeBytes, this.#sizeFill, pos, pos + n);
          this.#sizeFill += n;
          pos += n;
          if (this.#sizeFill < 4) break;
          this.#sizeFill = 0;
          size = this.#sizeBytes.readInt32BE(0);
          this.#checkSize(size);
          if (size === 0) {
            frames.push(Buffer.alloc(0));
            continue;
          }
        }
        this.#startFrame(size);
      }
      const n = Math.min(this.#frameSize - this.#frameFill, end - pos);
      if (this.#pieces) this.#pieces.push(chunk.subarray(pos, pos + n));
      else chunk.copy(this.#frame!, this.#frameFill, pos, pos + n);
      this.#frameFill += n;
      pos += n;
      if (this.#frameFill === this.#frameSize) {
        frames.push(this.#pieces ? this.#join(this.#pieces, this.#frameSize) : this.#frame!.subarray(0, this.#frameSize));
        this.#frame = null;
        this.#pieces = null;
        this.#frameFill = 0;
      }
    }
    return frames;
  }

  /** The pieces of a frame in one buffer: the caller's (allocate) if it gives one, else a fresh one. */
  #join(pieces: Buffer[], size: number): Buffer {
    const target = this.#allocate?.(size, pieces[0]!);
    if (!target) return Buffer.concat(pieces, size);
    let at = 0;
    for (const piece of pieces) at += piece.copy(target, at);
    return target.subarray(0, size);
  }

  #checkSize(size: number): void {
    if (size < 0 || size > this.#maxFrameBytes) throw new FrameSizeError(size, this.#maxFrameBytes);
  }

  #startFrame(size: number): void {
    this.#frameSize = size;
    this.#frameFill = 0;
    if (!this.#reuseBuffer) {
      this.#pieces = [];
      return;
    }
    if (this.#receiveBuffer === null || this.#receiveBuffer.length < size) {
      this.#receiveBuffer = Buffer.allocUnsafe(Math.max(size, (this.#receiveBuffer?.length ?? 0) * 2, 64 * 1024));
    }
    this.#frame = this.#receiveBuffer;
  }
}
