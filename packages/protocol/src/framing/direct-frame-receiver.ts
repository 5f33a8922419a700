import { FrameSizeError } from './frame-reader.js';

const SCRATCH_BYTES = 64 * 1024;
/** Reads go on into the free tail of a scratch buffer that has frames handed out while at least this much is left. */
const MIN_TAIL_BYTES = 16 * 1024;
const NO_FRAMES: Buffer[] = [];

/**
 * Size-prefixed frames read straight into their own memory (a plain socket's `onread` buffer hook): small frames
 * land in a 64 KiB scratch buffer and are handed out as views of it, and once a frame too large for it has
 * announced its size the socket reads the rest of it directly into a buffer of exactly that size. A fetch answer
 * of a megabyte or more is then written once, by the kernel, instead of into 64 KiB chunks that are copied
 * together afterwards (FrameReader's way, still used where a stream hands out its own chunks, as TLS does).
 * Frames handed out stay valid: bytes under a view handed out are never written again. Later reads go on into the
 * free tail of the same scratch buffer (so a stream of small answers, one per read, does not cost a fresh 64 KiB
 * each: that churn of external memory set off a full V8 GC about twice a second in a follower at 1,000 records/s),
 * and a fresh scratch buffer is taken only when the tail gets short or cannot hold the frame under way.
 */
export class DirectFrameReceiver {
  #maxFrameBytes: number;
  #scratch = Buffer.allocUnsafe(SCRATCH_BYTES);
  /** Unparsed bytes are scratch[start, end). */
  #start = 0;
  #end = 0;
  /** A frame handed out is a view of the scratch buffer: it must not be written again. */
  #scratchHandedOut = false;
  /** The large frame being read directly, and how much of it has arrived. */
  #frame: Buffer | null = null;
  #frameFill = 0;
  readonly #allocate: ((size: number, head: Buffer) => Buffer | undefined) | undefined;

  /**
   * `allocate` may give the memory of a frame too large for the scratch buffer (a pool's), seeing the frame's first
   * bytes as far as they have arrived (`head`); without it, or when it returns undefined, the frame gets a fresh buffer.
   */
  constructor(maxFrameBytes: number, allocate?: (size: number, head: Buffer) => Buffer | undefined) {
    this.#maxFrameBytes = maxFrameBytes;
    this.#allocate = allocate;
  }

  /** Frames announced larger than this are refused from now on (a server raises it after authentication). */
  setMaxFrameBytes(maxFrameBytes: number): void {
    this.#maxFrameBytes = maxFrameBytes;
  }

  /** Where the next socket read goes (the socket calls this before each read). */
  nextBuffer(): Buffer {
    if (this.#frame !== null) return this.#frame.subarray(this.#frameFill);
    const pending = this.#end - this.#start;
    if (this.#scratchHandedOut && this.#tailFits()) return this.#scratch.subarray(this.#end);
    if (this.#scratchHandedOut) {
      const fresh = Buffer.allocUnsafe(SCRATCH_BYTES);
      this.#scratch.copy(fresh, 0, this.#start, this.#end);
      this.#scratch = fresh;
      this.#scratchHandedOut = false;
    } else if (this.#start > 0) {
      this.#scratch.copyWithin(0, this.#start, this.#end);
    }
    this.#start = 0;
    this.#end = pending;
    return this.#scratch.subarray(pending);
  }

  /** Whether reading on at #end leaves a useful tail and room for the whole frame that starts at #start. */
  #tailFits(): boolean {
    if (SCRATCH_BYTES - this.#end < MIN_TAIL_BYTES) return false;
    // A frame that announced its size must fit whole from where it starts (larger ones were given their own buffer).
    return this.#end - this.#start < 4 || this.#start + 4 + this.#scratch.readInt32BE(this.#start) <= SCRATCH_BYTES;
  }

  /** `nread` bytes were read into the last nextBuffer(); returns the frames they completed. Throws FrameSizeError. */
  onRead(nread: number): Buffer[] {
    if (this.#frame !== null) {
      this.#frameFill += nread;
      if (this.#frameFill < this.#frame.length) return NO_FRAMES;
      const frame = this.#frame;
      this.#frame = null;
      return [frame];
    }
    this.#end += nread;
    const scratch = this.#scratch;
    let frames = NO_FRAMES;
    while (this.#end - this.#start >= 4) {
      const size = scratch.readInt32BE(this.#start);
      if (size < 0 || size > this.#maxFrameBytes) throw new FrameSizeError(size, this.#maxFrameBytes);
      const arrived = this.#end - this.#start - 4;
      if (arrived >= size) {
        if (frames === NO_FRAMES) frames = [];
        frames.push(scratch.subarray(this.#start + 4, this.#start + 4 + size));
        this.#scratchHandedOut = true;
        this.#start += 4 + size;
        continue;
      }
      if (size + 4 > SCRATCH_BYTES) {
        // Too large for the scratch buffer: the socket fills a buffer of the frame's size from here on.
        const frame = this.#allocate?.(size, scratch.subarray(this.#start + 4, this.#end))?.subarray(0, size) ?? Buffer.allocUnsafe(size);
        scratch.copy(frame, 0, this.#start + 4, this.#end);
        this.#frame = frame;
        this.#frameFill = arrived;
        this.#start = this.#end; // consumed; views handed out before it stay untouched
      }
      break;
    }
    return frames;
  }
}
