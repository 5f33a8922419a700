// The final log: read again at the end, after the faults healed and the ISRs converged, by a fresh client
// (not the set of values ever seen), from the log start offset to the high watermark of every partition.
import { silentLogger } from '@gregor/common';
import { EARLIEST_TIMESTAMP, fetchPartition, KafkaClient, LATEST_TIMESTAMP, listOffsets } from '@gregor/client';
import type { FinalLog, FinalPartition } from './checker.js';
import { sleep } from './writers.js';

export async function readFinalLog(bootstrap: string, topic: string, partitions: number[], timeoutMs = 60_000): Promise<FinalLog> {
  const client = new KafkaClient({ brokers: bootstrap, clientId: 'jepsen-final-reader', requestTimeoutMs: 10_000, metadataMaxAgeMs: 1000, logger: silentLogger() });
  const deadline = Date.now() + timeoutMs;
  try {
    const earliest = await listOffsets(client, topic, partitions.map((partition) => ({ partition, timestamp: EARLIEST_TIMESTAMP })));
    const latest = await listOffsets(client, topic, partitions.map((partition) => ({ partition, timestamp: LATEST_TIMESTAMP })));
    const out: FinalPartition[] = [];
    for (const partition of partitions) {
      const logStartOffset = earliest.get(partition)!.offset;
      const highWatermark = latest.get(partition)!.offset;
      const records: [number, string][] = [];
      let position = logStartOffset;
      let lastError: unknown = null;
      while (position < highWatermark) {
        if (Date.now() > deadline) throw new Error(`final read of ${topic}-${partition} stuck at offset ${position} of ${highWatermark}: ${String(lastError)}`);
        try {
          const r = await fetchPartition(client, { topic, partition, offset: position, maxWaitMs: 100, maxPartitionFetchBytes: 4 * 1024 * 1024 });
          for (const x of r.records) if (x.offset < highWatermark) records.push([x.offset, x.value?.toString() ?? '']);
          const next = r.records.length > 0 ? r.records[r.records.length - 1]!.offset + 1 : r.nextOffset;
          position = Math.max(position, next);
        } catch (err) {
          lastError = err;
          await client.refreshMetadata([topic]).catch(() => undefined);
          await sleep(200);
        }
      }
      out.push({ partition, logStartOffset, highWatermark, records });
    }
    return { topic, partitions: out };
  } finally {
    await client.close();
  }
}
