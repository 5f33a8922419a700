/** One record of a RecordBatch v2, as producers give it and consumers receive it. */
export interface RecordHeader {
  key: string;
  value: Buffer | null;
}

export interface RecordInput {
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
  timestamp: number;
  /** Offset relative to the batch's base offset; default the record's index (compaction leaves gaps). */
  offsetDelta?: number;
}

export interface DecodedRecord {
  offset: number;
  timestamp: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
}
