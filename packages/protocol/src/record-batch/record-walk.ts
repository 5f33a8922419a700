/**
 * A non-allocating walk over the records section of a v2 batch (already decompressed): every varint and
 * length is checked against what is left, so a broker can validate a producer's batch (Kafka's LogValidator
 * iterating DefaultRecord.readFrom) without decoding keys, values or headers into objects.
 */

/** What the validator needs to know of one record. */
export interface WalkedRecord {
  /** Position of the record in its batch (KIP-467's batch_index). */
  index: number;
  attributes: number;
  timestampDelta: number;
  offsetDelta: number;
  keyIsNull: boolean;
}

/** A structural problem: the records section is not `count` well-formed records. */
export class RecordWalkError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'RecordWalkError';
  }
}

/**
 * Walks exactly `count` records in `data[start, end)`, calling `visit` for each, and fails when a varint
 * is malformed, a length points past the record, or the section holds fewer or more than `count` records.
 * `visit` may throw to stop the walk. The WalkedRecord passed to `visit` is reused between calls.
 */
export function walkRecords(data: Buffer, start: number, end: number, count: number, visit: (r: WalkedRecord) => void): void {
  const cur = new Cursor(data, start, end);
  const rec: WalkedRecord = { index: 0, attributes: 0, timestampDelta: 0, offsetDelta: 0, keyIsNull: false };
  for (let i = 0; i < count; i++) {
    if (cur.pos >= end) throw new RecordWalkError(`batch declares ${count} records but holds only ${i}`);
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
    cur.skipBytes(keyLength, 'key');
    cur.skipBytes(cur.varint(), 'value');
    const headerCount = cur.varint();
    if (headerCount < 0) throw new RecordWalkError(`record ${i}: invalid header count ${headerCount}`);
    for (let h = 0; h < headerCount; h++) {
      const headerKeyLength = cur.varint();
      if (headerKeyLength < 0) throw new RecordWalkError(`record ${i}: null or negative header key length ${headerKeyLength}`);
      cur.skipBytes(headerKeyLength, 'header key');
      cur.skipBytes(cur.varint(), 'header value');
    }
    if (cur.pos !== recordEnd) throw new RecordWalkError(`record ${i}: declares ${length} bytes but its fields take ${length - (recordEnd - cur.pos)}`);
    cur.end = end;
    visit(rec);
  }
  if (cur.pos !== end) throw new RecordWalkError(`batch has ${end - cur.pos} bytes after its ${count} records`);
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

  /** A zigzag varlong as a number (exact up to 2^53, which is all a timestamp delta needs). */
  varlong(): number {
    let z = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new RecordWalkError('record truncated in a varlong');
      const b = this.buf[this.pos++]!;
      z += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) return z % 2 === 0 ? z / 2 : -(z + 1) / 2;
      scale *= 128;
    }
    throw new RecordWalkError('varlong longer than 10 bytes');
  }

  /** Skips a length-prefixed field; -1 is null. */
  skipBytes(length: number, what: string): void {
    if (length < -1) throw new RecordWalkError(`invalid ${what} length ${length}`);
    if (length > this.end - this.pos) throw new RecordWalkError(`${what} length ${length} exceeds the ${this.end - this.pos} bytes left in the record`);
    if (length > 0) this.pos += length;
  }
}
