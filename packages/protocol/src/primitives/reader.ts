import { CorruptDataError } from '@gregor/common';
import { readInt64Number } from './int64.js';

/**
 * Bounds-checked big-endian reader for Kafka's wire types. Every read past the end throws
 * CorruptDataError, so a malformed frame can never crash the broker or read stray memory.
 * Byte fields are returned as views into the source buffer (no copy).
 */
export class Reader {
  /**
   * Set for the body of a flexible API version (KIP-482): string, bytes and array fields (and their
   * nullable forms) are read in the compact encodings, and `tags()` reads a tagged-field section.
   */
  flexible = false;
  readonly buf: Buffer;
  #pos: number;
  readonly #end: number;

  constructor(buf: Buffer, start = 0, end = buf.length) {
    this.buf = buf;
    this.#pos = start;
    this.#end = end;
  }

  get position(): number {
    return this.#pos;
  }

  get remaining(): number {
    return this.#end - this.#pos;
  }

  #need(n: number, what: string): void {
    if (n < 0 || this.#pos + n > this.#end) {
      throw new CorruptDataError(`truncated data: ${what} needs ${n} bytes at ${this.#pos}, ${this.#end - this.#pos} left`);
    }
  }

  int8(): number {
    this.#need(1, 'int8');
    return this.buf.readInt8(this.#pos++);
  }

  uint8(): number {
    this.#need(1, 'uint8');
    return this.buf[this.#pos++]!;
  }

  bool(): boolean {
    return this.uint8() !== 0;
  }

  int16(): number {
    this.#need(2, 'int16');
    const v = this.buf.readInt16BE(this.#pos);
    this.#pos += 2;
    return v;
  }

  int32(): number {
    this.#need(4, 'int32');
    const v = this.buf.readInt32BE(this.#pos);
    this.#pos += 4;
    return v;
  }

  uint32(): number {
    this.#need(4, 'uint32');
    const v = this.buf.readUInt32BE(this.#pos);
    this.#pos += 4;
    return v;
  }

  /** i64 as a JS number: offsets and timestamps stay far below 2^53. */
  int64(): number {
    this.#need(8, 'int64');
    const v = readInt64Number(this.buf, this.#pos);
    this.#pos += 8;
    return v;
  }

  int64Big(): bigint {
    this.#need(8, 'int64');
    const v = this.buf.readBigInt64BE(this.#pos);
    this.#pos += 8;
    return v;
  }

  uvarint(): number {
    let result = 0;
    let shift = 0;
    for (let i = 0; i < 5; i++) {
      this.#need(1, 'varint');
      const b = this.buf[this.#pos++]!;
      result |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return result >>> 0;
      shift += 7;
    }
    throw new CorruptDataError('varint longer than 5 bytes');
  }

  varint(): number {
    const z = this.uvarint();
    return (z >>> 1) ^ -(z & 1);
  }

  varlong(): number {
    // Fast path in plain numbers (exact below 2^49, 7 bytes): record timestamp deltas are small. BigInt otherwise.
    const start = this.#pos;
    let n = 0;
    let scale = 1;
    for (let i = 0; i < 7; i++) {
      this.#need(1, 'varlong');
      const b = this.buf[this.#pos++]!;
      n += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return n % 2 === 0 ? n / 2 : -(n + 1) / 2;
      scale *= 128;
    }
    this.#pos = start;
    return this.#bigVarlong();
  }

  #bigVarlong(): number {
    let z = 0n;
    let shift = 0n;
    for (let i = 0; i < 10; i++) {
      this.#need(1, 'varlong');
      const b = this.buf[this.#pos++]!;
      z |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) return Number((z >> 1n) ^ -(z & 1n));
      shift += 7n;
    }
    throw new CorruptDataError('varlong longer than 10 bytes');
  }

  raw(n: number): Buffer {
    this.#need(n, 'bytes');
    const v = this.buf.subarray(this.#pos, this.#pos + n);
    this.#pos += n;
    return v;
  }

  skip(n: number): void {
    this.#need(n, 'skip');
    this.#pos += n;
  }

  string(): string {
    if (this.flexible) return this.compactString();
    const len = this.int16();
    if (len < 0) throw new CorruptDataError('null where a string is required');
    return this.raw(len).toString('utf8');
  }

  nullableString(): string | null {
    if (this.flexible) return this.compactNullableString();
    const len = this.int16();
    if (len < 0) return null;
    return this.raw(len).toString('utf8');
  }

  compactString(): string {
    const len = this.uvarint() - 1;
    if (len < 0) throw new CorruptDataError('null where a compact string is required');
    return this.raw(len).toString('utf8');
  }

  compactNullableString(): string | null {
    const len = this.uvarint() - 1;
    if (len < 0) return null;
    return this.raw(len).toString('utf8');
  }

  bytes(): Buffer {
    if (this.flexible) return this.compactBytes();
    const len = this.int32();
    if (len < 0) throw new CorruptDataError('null where bytes are required');
    return this.raw(len);
  }

  nullableBytes(): Buffer | null {
    if (this.flexible) return this.compactNullableBytes();
    const len = this.int32();
    if (len < 0) return null;
    return this.raw(len);
  }

  compactBytes(): Buffer {
    const len = this.uvarint() - 1;
    if (len < 0) throw new CorruptDataError('null where compact bytes are required');
    return this.raw(len);
  }

  compactNullableBytes(): Buffer | null {
    const len = this.uvarint() - 1;
    if (len < 0) return null;
    return this.raw(len);
  }

  #count(n: number, minItemBytes: number): number {
    // A hostile count cannot make us allocate: each item needs at least minItemBytes.
    if (n * minItemBytes > this.remaining) throw new CorruptDataError(`array count ${n} exceeds the remaining ${this.remaining} bytes`);
    return n;
  }

  array<T>(readItem: (r: this) => T, minItemBytes = 1): T[] {
    if (this.flexible) return this.compactArray(readItem, minItemBytes);
    const n = this.int32();
    if (n < 0) throw new CorruptDataError('null where an array is required');
    this.#count(n, minItemBytes);
    const out: T[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = readItem(this);
    return out;
  }

  nullableArray<T>(readItem: (r: this) => T, minItemBytes = 1): T[] | null {
    if (this.flexible) return this.compactNullableArray(readItem, minItemBytes);
    const n = this.int32();
    if (n < 0) return null;
    this.#count(n, minItemBytes);
    const out: T[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = readItem(this);
    return out;
  }

  compactArray<T>(readItem: (r: this) => T, minItemBytes = 1): T[] {
    const n = this.uvarint() - 1;
    if (n < 0) throw new CorruptDataError('null where a compact array is required');
    this.#count(n, minItemBytes);
    const out: T[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = readItem(this);
    return out;
  }

  compactNullableArray<T>(readItem: (r: this) => T, minItemBytes = 1): T[] | null {
    const n = this.uvarint() - 1;
    if (n < 0) return null;
    this.#count(n, minItemBytes);
    const out: T[] = new Array(n);
    for (let i = 0; i < n; i++) out[i] = readItem(this);
    return out;
  }

  /** Reads and discards a tagged-field section. */
  skipTaggedFields(): void {
    this.#readTaggedFields(undefined);
  }

  /**
   * Ends a struct: in a flexible version, reads its tagged-field section, handing each known tag a
   * reader bounded to the field's bytes and skipping unknown ones; nothing in a classic version.
   * Tags must be strictly increasing (Kafka rejects the message otherwise).
   */
  tags(onTag?: (tag: number, field: Reader) => void): void {
    if (this.flexible) this.#readTaggedFields(onTag);
  }

  #readTaggedFields(onTag: ((tag: number, field: Reader) => void) | undefined): void {
    const count = this.uvarint();
    this.#count(count, 2);
    let last = -1;
    for (let i = 0; i < count; i++) {
      const tag = this.uvarint();
      if (tag <= last) throw new CorruptDataError(`tagged field ${tag} follows ${last}: tags must increase`);
      last = tag;
      const size = this.uvarint();
      this.#need(size, 'tagged field');
      if (onTag) {
        const field = new Reader(this.buf, this.#pos, this.#pos + size);
        field.flexible = true;
        onTag(tag, field);
      }
      this.#pos += size;
    }
  }
}
