// Test support: read a partition's batches with their producer ids and sequences, and check what idempotence
// promises: per producer epoch, sequences follow each other with no gap and no repeat, and no value is stored twice.
import { ErrorCode } from '@gregor/common';
import { Connection } from '@gregor/client';
import { decodeRecordSet, Fetch } from '@gregor/protocol';

export interface StoredBatch {
  baseOffset: number;
  lastOffset: number;
  producerId: number;
  producerEpoch: number;
  baseSequence: number;
  values: string[];
}

/** Every batch of topic-partition from `fromOffset` up to the high watermark, from the partition's leader at `port`. */
export async function readBatches(port: number, topic: string, partition: number, fromOffset = 0): Promise<StoredBatch[]> {
  const conn = new Connection({ host: '127.0.0.1', port, clientId: 'idempotent-log' });
  await conn.connect();
  const out: StoredBatch[] = [];
  try {
    let offset = fromOffset;
    for (let round = 0; round < 100_000; round++) {
      const res = await conn.send(Fetch, {
        replicaId: -1,
        maxWaitMs: 0,
        minBytes: 1,
        maxBytes: 4 << 20,
        isolationLevel: 0,
        topics: [{ topic, partitions: [{ partition, fetchOffset: offset, currentLeaderEpoch: -1, logStartOffset: -1, partitionMaxBytes: 4 << 20 }] }],
      });
      const p = res.responses[0]!.partitionResponses[0]!;
      if (p.errorCode !== ErrorCode.NONE) throw new Error(`fetch ${topic}-${partition}@${offset}: error ${p.errorCode}`);
      const batches = decodeRecordSet(p.recordSet ?? Buffer.alloc(0));
      if (batches.length === 0) break;
      for (const b of batches) {
        if (b.baseOffset + b.lastOffsetDelta < offset) continue;
        out.push({
          baseOffset: b.baseOffset,
          lastOffset: b.baseOffset + b.lastOffsetDelta,
          producerId: b.producerId,
          producerEpoch: b.producerEpoch,
          baseSequence: b.baseSequence,
          values: b.records.map((r) => r.value?.toString() ?? ''),
        });
        offset = b.baseOffset + b.lastOffsetDelta + 1;
      }
      if (offset >= p.highWatermark) break;
    }
  } finally {
    await conn.close();
  }
  return out;
}

/** Problems with the idempotence of `batches` (empty = none): sequence gaps or repeats per producer epoch, repeated values. */
export function idempotenceProblems(batches: StoredBatch[]): string[] {
  const problems: string[] = [];
  const next = new Map<string, number>();
  const seen = new Map<string, number>();
  for (const b of batches) {
    for (const [i, v] of b.values.entries()) {
      const at = seen.get(v);
      if (at !== undefined) problems.push(`value ${v} at offsets ${at} and ${b.baseOffset + i}`);
      else seen.set(v, b.baseOffset + i);
    }
    if (b.producerId < 0) continue;
    const key = `${b.producerId}/${b.producerEpoch}`;
    const expected = next.get(key) ?? 0;
    if (b.baseSequence !== expected) problems.push(`producer ${key}: batch at ${b.baseOffset} has sequence ${b.baseSequence}, expected ${expected}`);
    next.set(key, b.baseSequence + (b.lastOffset - b.baseOffset) + 1);
  }
  return problems;
}
