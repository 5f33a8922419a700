import { ErrorCode } from '@gregor/common';
import type { DeleteRecordsRequest, DeleteRecordsResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { DeleteRecordsEntry } from '../cluster/replica-manager.js';
import type { ApiHandler } from '../kafka-apis.js';

/**
 * DeleteRecords (kafka-delete-records, AdminClient.deleteRecords): the leader of each partition raises its log start
 * offset; the answer carries the low watermark once every live replica has followed, or REQUEST_TIMED_OUT.
 */
export function deleteRecordsHandler(s: BrokerServices): ApiHandler<DeleteRecordsRequest, DeleteRecordsResponse> {
  return async (req) => {
    const unknown = new Set<string>();
    const entries: DeleteRecordsEntry[] = [];
    for (const t of req.topics) {
      for (const p of t.partitions) {
        if (!s.metadataCache.partition(t.name, p.partitionIndex)) unknown.add(`${t.name}-${p.partitionIndex}`);
        else entries.push({ topic: t.name, partition: p.partitionIndex, offset: p.offset });
      }
    }
    const statuses = entries.length > 0 ? await s.replicaManager.deleteRecords(req.timeoutMs, entries) : [];
    const byKey = new Map(statuses.map((st) => [`${st.topic}-${st.partition}`, st]));
    return {
      throttleTimeMs: 0,
      topics: req.topics.map((t) => ({
        name: t.name,
        partitions: t.partitions.map((p) => {
          const st = byKey.get(`${t.name}-${p.partitionIndex}`);
          if (!st || unknown.has(`${t.name}-${p.partitionIndex}`)) {
            return { partitionIndex: p.partitionIndex, lowWatermark: -1, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION };
          }
          // -1 on errors; a timeout keeps the low watermark last seen, as Kafka answers.
          return { partitionIndex: p.partitionIndex, lowWatermark: st.lowWatermark, errorCode: st.errorCode };
        }),
      })),
    };
  };
}
