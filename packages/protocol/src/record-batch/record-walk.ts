import { CorruptDataError } from '@gregor/common';
import { bufferView } from '../primitives/buffer-view.js';

/**
 * The one reading of the records section of a v2 batch (already decompressed), Kafka's DefaultRecord.readFrom:
 * every varint and length is checked against what is left. The leader's validation walks it without decoding
 * keys, values or headers into objects; the decoder (decodeRecordBatch) walks it and slices them out.
 */

/** One record as positions in the walked buffer (nothing copied). */
export interface WalkedRecord {
  /** Position of the record in its batch (KIP-467's batch_index). */
  index: number;
  attributes: number;
  timestampDelta: number;
  offsetDelta: number;
  keyIsNull: boolean;
  /** The key is buffer[keyStart, keyStart + keyLength); keyLength -1 is a null key. */
  keyStart: number;
  keyLength: number;
  /** The value likewise; -1 is a null value (a tombstone). */
  valueStart: number;
  valueLength: number;
  /** Where the record's headers start (after their count), and how many there are. */
  headersStart: number;
  headerCount: number;
}

/**
 * A structural problem: the records section is not `count` well-formed records. A CorruptDataError (CORRUPT_MESSAGE)
 * to a reader; the leader's validator answers it with INVALID_RECORD.
 */
export class RecordWalkError extends CorruptDataError {
  constructor(message: string) {
    super(message);
    this.name = 'RecordWalkError';
  }
}

/**
 * Walks exactly `count` records in `data[start, end)`: each next() reads one into `record` (reused) and returns
 * true, then false after the last, and throws a RecordWalkError when a varint is malformed, a length points past
 * the record, or the section holds fewer or more than `count` records. A loop over next(), rather than a visitor
 * callback, keeps the caller's per-record code in its own function, where the JIT optimizes it the same way every
 * run (a decoder's callback was sometimes left un-inlined, costing a consumer twice the CPU per record).
 */
export class RecordWalker {
  readonly record: WalkedRecord = {
    index: -1,
    attributes: 0,
    timestampDelta: 0,
    offsetDelta: 0,
    keyIsNull: false,
    keyStart: 0,
    keyLength: -1,
    valueStart: 0,
    valueLength: -1,
    headersStart: 0,
    headerCount: 0,
  };
  readonly #cur: Cursor;
  readonly #end: number;
  readonly #count: number;

  constructor(data: Buffer, start: number, end: number, count: number) {
    this.#cur = new Cursor(data, start, end);
    this.#end = end;
    this.#count = count;
  }

  next(): boolean {
    const cur = this.#cur;
    const end = this.#end;
    const rec = this.record;
    const i = rec.index + 1;
    if (i >= this.#count) {
      if (cur.pos !== end) throw new RecordWalkError(`batch has ${end - cur.pos} bytes after its ${this.#count} records`);
      return false;
    }
    if (cur.pos >= end) throw new RecordWalkError(`batch declares ${this.#count} records but holds only ${i}`);
    const length = cur.varint();
    if (length < 0 || length > end - cur.pos) throw new RecordWalkError(`record ${i}: length ${length} exceeds the ${end - cur.pos} bytes left`);
    const recordEnd = cur.pos + length;
    cur.end = recordEnd;
    rec.index = i;
    rec.attributes = cur.int8();
    rec.timestampDelta = cur.varlong();
    rec.offsetDelta = cur.varint();
    const keyLength = cur.varint();
    rec.keyIsNull = keyLength === -1;
    rec.keyLength = keyLength;
    rec.keyStart = cur.pos;
    cur.skipBytes(keyLength, 'key');
    rec.valueLength = cur.varint();
    rec.valueStart = cur.pos;
    cur.skipBytes(rec.valueLength, 'value');
    const headerCount = cur.varint();
    if (headerCount < 0) throw new RecordWalkError(`record ${i}: invalid header count ${headerCount}`);
    rec.headerCount = headerCount;
    rec.headersStart = cur.pos;
    for (let h = 0; h < headerCount; h++) {
      const headerKeyLength = cur.varint();
      if (headerKeyLength < 0) throw new RecordWalkError(`record ${i}: null or negative header key length ${headerKeyLength}`);
      cur.skipBytes(headerKeyLength, 'header key');
      cur.skipBytes(cur.varint(), 'header value');
    }
    if (cur.pos !== recordEnd) throw new RecordWalkError(`record ${i}: declares ${length} bytes but its fields take ${length - (recordEnd - cur.pos)}`);
    cur.end = end;
    return true;
  }
}

/**
 * walkRecords as a visitor: `visit` is called for each record (the WalkedRecord passed is reused between calls) and
 * may throw to stop the walk.
 */
export function walkRecords(data: Buffer, start: number, end: number, count: number, visit: (r: WalkedRecord) => void): void {
  const walker = new RecordWalker(data, start, end, count);
  while (walker.next()) visit(walker.record);
}

/** The headers of a walked record (`data` is the buffer it was walked in), keys as UTF-8, values sliced out. */
export function walkedRecordHeaders(data: Buffer, r: WalkedRecord): { key: string; value: Buffer | null }[] {
  const headers: { key: string; value: Buffer | null }[] = new Array(r.headerCount);
  if (r.headerCount === 0) return headers;
  // The walk checked every length already; this only slices.
  const cur = new Cursor(data, r.headersStart, data.length);
  for (let h = 0; h < r.headerCount; h++) {
    const keyLength = cur.varint();
    const key = data.toString('utf8', cur.pos, cur.pos + keyLength);
    cur.pos += keyLength;
    const valueLength = cur.varint();
    headers[h] = { key, value: valueLength < 0 ? null : bufferView(data, cur.pos, valueLength) };
    if (valueLength > 0) cur.pos += valueLength;
  }
  return headers;
}

/** Bounds-checked reads inside [pos, end); every overrun is a RecordWalkError. */
class Cursor {
  constructor(
    readonly buf: Buffer,
    public pos: number,
    public end: number,
  ) {}

  int8(): number {
    if (this.pos >= this.end) throw new RecordWalkError('record truncated in its attributes');
    return this.buf[this.pos++]!;
  }

  varint(): number {
    let z = 0;
    for (let shift = 0; shift < 35; shift += 7) {
      if (this.pos >= this.end) throw new RecordWalkError('record truncated in a varint');
      const b = this.buf[this.pos++]!;
      z |= (b & 0x7f) << shift;
      if ((b & 0x80) === 0) return (z >>> 1) ^ -(z & 1);
    }
    throw new RecordWalkError('varint longer than 5 bytes');
  }

  /** A zigzag varlong as a number: exact arithmetic up to 7 bytes (49 bits), BigInt past that as Reader.varlong. */
  varlong(): number {
    const start = this.pos;
    let z = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new RecordWalkError('record truncated in a varlong');
      const b = this.buf[this.pos++]!;
      z += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return i < 7 ? (z % 2 === 0 ? z / 2 : -(z + 1) / 2) : this.#bigVarlong(start, i + 1);
      scale *= 128;
    }
    throw new RecordWalkError('varlong longer than 10 bytes');
  }

  #bigVarlong(start: number, length: number): number {
    let z = 0n;
    for (let i = 0; i < length; i++) z |= BigInt(this.buf[start + i]! & 0x7f) << BigInt(7 * i);
    return Number((z >> 1n) ^ -(z & 1n));
  }

  /** Skips a length-prefixed field; -1 is null. */
  skipBytes(length: number, what: string): void {
    if (length < -1) throw new RecordWalkError(`invalid ${what} length ${length}`);
    if (length > this.end - this.pos) throw new RecordWalkError(`${what} length ${length} exceeds the ${this.end - this.pos} bytes left in the record`);
    if (length > 0) this.pos += length;
  }
}
