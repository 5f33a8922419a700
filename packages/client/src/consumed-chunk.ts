import { CorruptDataError } from '@gregor/common';
import { RecordSetCursor, forEachBatch } from '@gregor/protocol';
import { consumedRecordFactory, type ConsumedRecord } from './consumed-record.js';

/**
 * One partition's records of a Fetch answer, handed out one at a time from `from` (a batch may start before the
 * offset asked for) up to `end` (exclusive). Records are decoded as they are asked for (RecordSetCursor), so a
 * consumer keeps one record alive, not every record of a ~1 MB answer; a batch that cannot be decoded throws a
 * CorruptDataError naming the partition once the records before it were handed out.
 */
export class ConsumedChunk {
  readonly topic: string;
  readonly partition: number;
  readonly #from: number;
  readonly #end: number;
  readonly #records: RecordSetCursor<ConsumedRecord>;
  #position: number;
  #done = false;

  constructor(topic: string, partition: number, recordSet: Buffer, from: number, end: number, maxDecompressedBytes: number) {
    this.topic = topic;
    this.partition = partition;
    this.#from = from;
    this.#end = end;
    this.#position = from;
    this.#records = new RecordSetCursor(recordSet, { maxDecompressedBytes }, consumedRecordFactory(topic, partition));
  }

  /** The offset after the last record handed out (`from` before the first): where to read again after a failure. */
  get position(): number {
    return this.#position;
  }

  /** The next record, or undefined once the chunk is exhausted (or reached `end`). */
  next(): ConsumedRecord | undefined {
    while (!this.#done) {
      let r: ConsumedRecord | undefined;
      try {
        r = this.#records.next();
      } catch (err) {
        this.#done = true;
        if (!(err instanceof CorruptDataError)) throw err;
        throw new CorruptDataError(`fetch ${this.topic}-${this.partition} at offset ${this.#from}: ${err.message}`, { cause: err });
      }
      if (r === undefined || r.offset >= this.#end) break;
      if (r.offset >= this.#from) {
        this.#position = r.offset + 1;
        return r;
      }
    }
    this.#done = true;
    return undefined;
  }
}

/**
 * The offset after the last whole batch of a fetched record set (its headers only: records are decoded when handed
 * out), and whether a batch header could not even be read. `fetchOffset` when no whole batch is there.
 */
export function nextFetchOffset(recordSet: Buffer, fetchOffset: number): { nextOffset: number; error: CorruptDataError | null } {
  let nextOffset = fetchOffset;
  try {
    forEachBatch(recordSet, (header) => void (nextOffset = Math.max(nextOffset, header.lastOffset + 1)), { allowPartialTail: true });
  } catch (err) {
    if (!(err instanceof CorruptDataError)) throw err;
    return { nextOffset, error: err };
  }
  return { nextOffset, error: null };
}
