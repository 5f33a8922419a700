import { BatchOffsets as O, BATCH_HEADER_SIZE, BATCH_LOG_OVERHEAD } from './batch-header.js';
import type { BatchHeader } from './batch-view.js';
import { buildWalkedRecord, openRecordBatch, type DecodeRecordBatchOptions, type RecordFactory } from './decode-record-batch.js';
import { RecordWalker } from './record-walk.js';

/**
 * The records of a fetched record set, decoded one at a time as they are asked for (Kafka's consumer iterates a
 * fetch's batches and records the same way). Decoding a whole ~1 MB partition chunk up front keeps thousands of
 * records alive at once, which every young-generation GC then copies; a reader that hands records out one by one
 * keeps one alive. Each batch is checked (CRC, length, count) and decompressed when it is reached. Records of
 * control batches (transaction markers) are not handed out, and a partial last batch (a fetch answer may end
 * with one) ends the set quietly.
 */
export class RecordSetCursor<R> {
  readonly #buf: Buffer;
  readonly #options: DecodeRecordBatchOptions;
  readonly #make: RecordFactory<R>;
  /** Where the next batch starts. */
  #pos = 0;
  #header: BatchHeader | null = null;
  #data: Buffer | null = null;
  #walker: RecordWalker | null = null;
  #done = false;

  constructor(buf: Buffer, options: DecodeRecordBatchOptions, make: RecordFactory<R>) {
    this.#buf = buf;
    this.#options = options;
    this.#make = make;
  }

  /**
   * The next record, or undefined when the set is exhausted. A batch that cannot be decoded (or a malformed record
   * in it) throws a CorruptDataError once the records before it were handed out; the cursor then ends.
   */
  next(): R | undefined {
    for (;;) {
      const walker = this.#walker;
      if (walker !== null) {
        let more: boolean;
        try {
          more = walker.next();
        } catch (err) {
          this.#end();
          throw err;
        }
        if (more) return buildWalkedRecord(this.#header!, this.#data!, walker.record, this.#make);
        this.#walker = null;
      }
      if (!this.#openNextBatch()) return undefined;
    }
  }

  /** Moves to the next batch with records to hand out; false at the end of the set. */
  #openNextBatch(): boolean {
    const buf = this.#buf;
    while (!this.#done) {
      const pos = this.#pos;
      const remaining = buf.length - pos;
      if (remaining < BATCH_HEADER_SIZE) return this.#end();
      const batchLength = buf.readInt32BE(pos + O.batchLength);
      if (batchLength >= BATCH_HEADER_SIZE - BATCH_LOG_OVERHEAD && remaining < batchLength + BATCH_LOG_OVERHEAD) return this.#end();
      let opened: { header: BatchHeader; data: Buffer };
      try {
        opened = openRecordBatch(buf, pos, this.#options);
      } catch (err) {
        this.#end();
        throw err;
      }
      this.#pos = pos + opened.header.sizeInBytes;
      if (opened.header.isControl) continue;
      this.#header = opened.header;
      this.#data = opened.data;
      this.#walker = new RecordWalker(opened.data, 0, opened.data.length, opened.header.recordCount);
      return true;
    }
    return false;
  }

  #end(): false {
    this.#done = true;
    this.#walker = null;
    this.#header = null;
    this.#data = null;
    return false;
  }
}
