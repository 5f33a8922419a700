/**
 * Growable big-endian writer for Kafka's wire types.
 *
 * Large byte fields (record sets read from log files) are not copied: they are kept as separate
 * chunks and written to the socket with the rest (see `chunks()`), because a broker's time goes
 * into moving bytes, not parsing them.
 */
const ZERO_COPY_MIN = 4096;

/** One tagged field of a flexible struct; `write` undefined means the field is absent (default). */
export interface TaggedField {
  tag: number;
  write: ((w: Writer) => void) | undefined;
}

export class Writer {
  /**
   * Set for the body of a flexible API version (KIP-482): string, bytes and array fields (and their
   * nullable forms) then use the compact encodings, and `tags()` writes a tagged-field section.
   * The frame encoders set it after the header, whose client id stays a classic string.
   */
  flexible = false;
  #buf: Buffer;
  #pos = 0;
  #chunks: Buffer[] = [];
  #chunkedBytes = 0;

  constructor(initialSize = 256) {
    this.#buf = Buffer.allocUnsafe(initialSize);
  }

  /** Bytes written so far. */
  get length(): number {
    return this.#chunkedBytes + this.#pos;
  }

  #ensure(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < this.#pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.#buf.copy(next, 0, 0, this.#pos);
    this.#buf = next;
  }

  int8(v: number): this {
    this.#ensure(1);
    this.#buf.writeInt8(v, this.#pos);
    this.#pos += 1;
    return this;
  }

  uint8(v: number): this {
    this.#ensure(1);
    this.#buf[this.#pos++] = v & 0xff;
    return this;
  }

  bool(v: boolean): this {
    return this.uint8(v ? 1 : 0);
  }

  int16(v: number): this {
    this.#ensure(2);
    this.#buf.writeInt16BE(v, this.#pos);
    this.#pos += 2;
    return this;
  }

  int32(v: number): this {
    this.#ensure(4);
    this.#buf.writeInt32BE(v, this.#pos);
    this.#pos += 4;
    return this;
  }

  uint32(v: number): this {
    this.#ensure(4);
    this.#buf.writeUInt32BE(v >>> 0, this.#pos);
    this.#pos += 4;
    return this;
  }

  int64(v: bigint | number): this {
    this.#ensure(8);
    this.#buf.writeBigInt64BE(typeof v === 'bigint' ? v : BigInt(v), this.#pos);
    this.#pos += 8;
    return this;
  }

  /** Unsigned LEB128 varint (flexible versions: lengths, tags). */
  uvarint(v: number): this {
    this.#ensure(5);
    let n = v >>> 0;
    while (n >= 0x80) {
      this.#buf[this.#pos++] = (n & 0x7f) | 0x80;
      n >>>= 7;
    }
    this.#buf[this.#pos++] = n;
    return this;
  }

  /** Signed zigzag varint (records inside a RecordBatch). */
  varint(v: number): this {
    return this.uvarint(((v << 1) ^ (v >> 31)) >>> 0);
  }

  /** Signed zigzag varlong (record timestamp deltas). Accepts numbers up to 2^53. */
  varlong(v: number | bigint): this {
    // Within int32 the 64-bit zigzag equals the 32-bit one: no BigInt on the hot path (timestamp deltas).
    if (typeof v === 'number' && v >= -0x80000000 && v <= 0x7fffffff && Number.isInteger(v)) return this.varint(v);
    let z = BigInt.asUintN(64, (BigInt(v) << 1n) ^ (BigInt(v) >> 63n));
    this.#ensure(10);
    while (z >= 0x80n) {
      this.#buf[this.#pos++] = Number(z & 0x7fn) | 0x80;
      z >>= 7n;
    }
    this.#buf[this.#pos++] = Number(z);
    return this;
  }

  raw(bytes: Uint8Array): this {
    if (bytes.length >= ZERO_COPY_MIN) {
      this.#flushToChunk();
      this.#chunks.push(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length));
      this.#chunkedBytes += bytes.length;
      return this;
    }
    this.#ensure(bytes.length);
    this.#buf.set(bytes, this.#pos);
    this.#pos += bytes.length;
    return this;
  }

  #flushToChunk(): void {
    if (this.#pos === 0) return;
    this.#chunks.push(this.#buf.subarray(0, this.#pos));
    this.#chunkedBytes += this.#pos;
    this.#buf = Buffer.allocUnsafe(Math.max(256, this.#buf.length - this.#pos));
    this.#pos = 0;
  }

  /** Classic string: i16 length + UTF-8 (compact in a flexible version). */
  string(s: string): this {
    if (this.flexible) return this.compactString(s);
    const len = Buffer.byteLength(s, 'utf8');
    this.int16(len);
    this.#ensure(len);
    this.#buf.write(s, this.#pos, len, 'utf8');
    this.#pos += len;
    return this;
  }

  nullableString(s: string | null): this {
    if (this.flexible) return this.compactNullableString(s);
    if (s === null) return this.int16(-1);
    return this.string(s);
  }

  /** Compact string: uvarint(len + 1) + UTF-8, 0 = null. */
  compactString(s: string): this {
    const len = Buffer.byteLength(s, 'utf8');
    this.uvarint(len + 1);
    this.#ensure(len);
    this.#buf.write(s, this.#pos, len, 'utf8');
    this.#pos += len;
    return this;
  }

  compactNullableString(s: string | null): this {
    if (s === null) return this.uvarint(0);
    return this.compactString(s);
  }

  /** Classic bytes: i32 length + data. */
  bytes(b: Uint8Array): this {
    if (this.flexible) return this.compactBytes(b);
    this.int32(b.length);
    return this.raw(b);
  }

  nullableBytes(b: Uint8Array | null): this {
    if (this.flexible) return this.compactNullableBytes(b);
    if (b === null) return this.int32(-1);
    return this.bytes(b);
  }

  compactBytes(b: Uint8Array): this {
    this.uvarint(b.length + 1);
    return this.raw(b);
  }

  compactNullableBytes(b: Uint8Array | null): this {
    if (b === null) return this.uvarint(0);
    return this.compactBytes(b);
  }

  /** Classic array: i32 count then items. */
  array<T>(items: readonly T[], writeItem: (w: this, item: T) => void): this {
    if (this.flexible) return this.compactArray(items, writeItem);
    this.int32(items.length);
    for (const item of items) writeItem(this, item);
    return this;
  }

  nullableArray<T>(items: readonly T[] | null, writeItem: (w: this, item: T) => void): this {
    if (this.flexible) return this.compactNullableArray(items, writeItem);
    if (items === null) return this.int32(-1);
    return this.array(items, writeItem);
  }

  /** Compact array: uvarint(count + 1), 0 = null. */
  compactArray<T>(items: readonly T[], writeItem: (w: this, item: T) => void): this {
    this.uvarint(items.length + 1);
    for (const item of items) writeItem(this, item);
    return this;
  }

  compactNullableArray<T>(items: readonly T[] | null, writeItem: (w: this, item: T) => void): this {
    if (items === null) return this.uvarint(0);
    return this.compactArray(items, writeItem);
  }

  /** An empty tagged-field section. */
  emptyTaggedFields(): this {
    return this.uvarint(0);
  }

  /**
   * Ends a struct: in a flexible version, its tagged-field section with the given fields (tags
   * strictly increasing; an absent field is omitted); nothing in a classic version.
   */
  tags(fields?: readonly TaggedField[]): this {
    if (!this.flexible) return this;
    const present = fields?.filter((f) => f.write !== undefined) ?? [];
    this.uvarint(present.length);
    let last = -1;
    for (const f of present) {
      if (f.tag <= last) throw new Error(`tagged fields must be in increasing tag order (${f.tag} after ${last})`);
      last = f.tag;
      const inner = new Writer(64);
      inner.flexible = true;
      f.write!(inner);
      const bytes = inner.toBuffer();
      this.uvarint(f.tag).uvarint(bytes.length).raw(bytes);
    }
    return this;
  }

  /**
   * Overwrite an i32 already written at absolute position `at`. The position may lie in a part
   * already flushed to a chunk (a size prefix before a large record set): i32s are always written
   * contiguously into the writer's own buffers, never into zero-copy chunks.
   */
  patchInt32(at: number, v: number): void {
    const local = at - this.#chunkedBytes;
    if (local >= 0) {
      this.#buf.writeInt32BE(v, local);
      return;
    }
    let start = 0;
    for (const chunk of this.#chunks) {
      if (at < start + chunk.length) {
        if (at + 4 > start + chunk.length) throw new Error(`patchInt32 at ${at} straddles a chunk boundary`);
        chunk.writeInt32BE(v, at - start);
        return;
      }
      start += chunk.length;
    }
  }

  /** The written bytes as a list of buffers (no copy of large byte fields). */
  chunks(): Buffer[] {
    const out = this.#chunks.slice();
    if (this.#pos > 0) out.push(this.#buf.subarray(0, this.#pos));
    return out;
  }

  /** The written bytes in one buffer (copies when there are several chunks). */
  toBuffer(): Buffer {
    const parts = this.chunks();
    return parts.length === 1 ? parts[0]! : Buffer.concat(parts, this.length);
  }
}
