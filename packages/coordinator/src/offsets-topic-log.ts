/**
 * What the coordinator needs from the broker's `__consumer_offsets` partitions (the broker implements it
 * over its replica manager): replicated appends, and local reads while loading a partition it now leads.
 */
export interface OffsetsTopicLog {
  /** Appends one record batch to a partition this broker leads, resolving once acks=-1 holds; returns an error code. */
  append(partition: number, records: Buffer): Promise<number>;
  /** Reads whole batches from `offset` (at least one batch), up to the local log end. */
  read(partition: number, offset: number, maxBytes: number): { records: Buffer; logStartOffset: number; logEndOffset: number };
}
