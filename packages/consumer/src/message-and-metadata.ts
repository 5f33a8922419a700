import type { RecordHeader } from '@gregor/protocol';

/** One message as a stream hands it out (Kafka's MessageAndMetadata, with v2 record headers). */
export interface MessageAndMetadata {
  topic: string;
  partition: number;
  offset: number;
  key: Buffer | null;
  value: Buffer | null;
  headers: RecordHeader[];
  timestamp: number;
}
