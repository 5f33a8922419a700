import {
  Attributes,
  BATCH_HEADER_SIZE,
  BATCH_LOG_OVERHEAD,
  BatchOffsets as O,
  CURRENT_MAGIC,
  CompressionType,
  compressionCodec,
  computeBatchCrc,
  type CompressionCodec,
  type RecordHeader,
} from '@gregor/protocol';

const INITIAL_CAPACITY = 16_384;

/** Batch-level fields known only when the batch is sent (idempotence numbers it then). */
export interface BatchSendFields {
  compression: CompressionCodec;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
}

/**
 * Kafka's MemoryRecordsBuilder: a producer batch's records are written into one growing buffer as they are
 * appended (record v2: zigzag varints, offset and timestamp deltas), behind room for the 61-byte batch header.
 * Sending fills in the header and the CRC-32C in place (uncompressed) or compresses the records once, so a
 * batch costs no per-record objects kept alive and no copy of its records when it goes out.
 */
export class RecordBatchBuilder {
  readonly firstTimestamp: number;
  #maxTimestamp: number;
  #buf: Buffer;
  #pos = BATCH_HEADER_SIZE;
  #count = 0;
  /** The last built batch and the fields it was built with, reused while they stay the same. */
  #built: Buffer | null = null;
  #builtFor = '';

  constructor(firstTimestamp: number, capacityHint = INITIAL_CAPACITY) {
    this.firstTimestamp = firstTimestamp;
    this.#maxTimestamp = firstTimestamp;
    this.#buf = Buffer.allocUnsafe(BATCH_HEADER_SIZE + Math.max(256, Math.min(capacityHint, INITIAL_CAPACITY)));
  }

  get count(): number {
    return this.#count;
  }

  /** Bytes the batch's buffer holds now (it grows as records are appended). */
  get capacityBytes(): number {
    return this.#buf.length;
  }

  /** Bytes of the uncompressed batch so far, header included. */
  get sizeInBytes(): number {
    return this.#pos;
  }

  append(key: Buffer | null, value: Buffer | null, headers: readonly RecordHeader[], timestamp: number): void {
    if (this.#built) throw new Error('a built record batch takes no more records');
    const timestampDelta = timestamp - this.firstTimestamp;
    const offsetDelta = this.#count;
    let headerKeys: Buffer[] | null = null;
    let size = 1 + varlongSize(timestampDelta) + varintSize(offsetDelta) + varBytesSize(key) + varBytesSize(value) + varintSize(headers.length);
    if (headers.length > 0) {
      headerKeys = headers.map((h) => Buffer.from(h.key, 'utf8'));
      for (let i = 0; i < headers.length; i++) size += varBytesSize(headerKeys[i]!) + varBytesSize(headers[i]!.value);
    }
    this.#ensure(size + 5);
    this.#varlong(size);
    this.#buf[this.#pos++] = 0; // attributes
    this.#varlong(timestampDelta);
    this.#varlong(offsetDelta);
    this.#bytes(key);
    this.#bytes(value);
    this.#varlong(headers.length);
    if (headerKeys) {
      for (let i = 0; i < headers.length; i++) {
        this.#bytes(headerKeys[i]!);
        this.#bytes(headers[i]!.value);
      }
    }
    this.#count++;
    if (timestamp > this.#maxTimestamp) this.#maxTimestamp = timestamp;
  }

  /** The RecordBatch v2 bytes (base offset 0) with these send fields; the same buffer while they do not change. */
  build(fields: BatchSendFields): Buffer {
    const key = `${fields.compression}/${fields.producerId}/${fields.producerEpoch}/${fields.baseSequence}`;
    if (this.#built && this.#builtFor === key) return this.#built;
    let out: Buffer;
    if (fields.compression === CompressionType.none) {
      // A batch handed out before (a resend under a new producer id) may still be referenced: header in a copy.
      if (this.#built) this.#buf = Buffer.from(this.#buf.subarray(0, this.#pos));
      out = this.#buf.subarray(0, this.#pos);
    } else {
      const compressed = compressionCodec(fields.compression).compress(this.#buf.subarray(BATCH_HEADER_SIZE, this.#pos));
      out = Buffer.allocUnsafe(BATCH_HEADER_SIZE + compressed.length);
      compressed.copy(out, BATCH_HEADER_SIZE);
    }
    out.writeBigInt64BE(0n, O.baseOffset);
    out.writeInt32BE(out.length - BATCH_LOG_OVERHEAD, O.batchLength);
    out.writeInt32BE(-1, O.partitionLeaderEpoch);
    out.writeInt8(CURRENT_MAGIC, O.magic);
    out.writeInt16BE(fields.compression & Attributes.compressionMask, O.attributes);
    out.writeInt32BE(this.#count - 1, O.lastOffsetDelta);
    out.writeBigInt64BE(BigInt(this.firstTimestamp), O.firstTimestamp);
    out.writeBigInt64BE(BigInt(this.#maxTimestamp), O.maxTimestamp);
    out.writeBigInt64BE(BigInt(fields.producerId), O.producerId);
    out.writeInt16BE(fields.producerEpoch, O.producerEpoch);
    out.writeInt32BE(fields.baseSequence, O.baseSequence);
    out.writeInt32BE(this.#count, O.recordCount);
    out.writeUInt32BE(computeBatchCrc(out, 0, out.length), O.crc);
    this.#built = out;
    this.#builtFor = key;
    return out;
  }

  #ensure(n: number): void {
    if (this.#pos + n <= this.#buf.length) return;
    let size = this.#buf.length * 2;
    while (size < this.#pos + n) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.#buf.copy(next, 0, 0, this.#pos);
    this.#buf = next;
  }

  /** Zigzag varint/varlong in plain numbers (exact for |v| < 2^52: offset and timestamp deltas, lengths). */
  #varlong(v: number): void {
    let z = v >= 0 ? v * 2 : -v * 2 - 1;
    const buf = this.#buf;
    while (z >= 0x80) {
      buf[this.#pos++] = (z % 0x80) | 0x80;
      z = Math.floor(z / 0x80);
    }
    buf[this.#pos++] = z;
  }

  #bytes(b: Buffer | null): void {
    if (b === null) {
      this.#buf[this.#pos++] = 1; // zigzag(-1)
      return;
    }
    this.#varlong(b.length);
    this.#buf.set(b, this.#pos);
    this.#pos += b.length;
  }
}

function varlongSize(v: number): number {
  let z = v >= 0 ? v * 2 : -v * 2 - 1;
  let n = 1;
  while (z >= 0x80) {
    z = Math.floor(z / 0x80);
    n++;
  }
  return n;
}

const varintSize = varlongSize;

function varBytesSize(b: Buffer | null): number {
  return b === null ? 1 : varlongSize(b.length) + b.length;
}
