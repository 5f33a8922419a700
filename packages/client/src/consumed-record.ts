import type { RecordFactory, RecordHeader } from '@gregor/protocol';

/** One record as gregor's consumers (Consumer, Reader, fetchPartition) hand it out. */
export interface ConsumedRecord {
  topic: string;
  partition: number;
  offset: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
  timestamp: number;
}

/** Decoded records of `topic`-`partition` built straight as ConsumedRecords (one object per record, not two). */
export function consumedRecordFactory(topic: string, partition: number): RecordFactory<ConsumedRecord> {
  return (offset, timestamp, key, value, headers) => ({ topic, partition, offset, key, value, headers, timestamp });
}
