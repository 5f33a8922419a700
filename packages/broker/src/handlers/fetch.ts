import { ErrorCode } from '@gregor/common';
import type { FetchRequest, FetchResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { FetchPartitionData } from '../cluster/replica-manager.js';
import type { ApiHandler } from '../kafka-apis.js';

/**
 * Fetch for consumers (replica id -1: up to the high watermark) and followers (their broker id:
 * up to the log end). Long-polls up to max_wait_ms for min_bytes. Fetch sessions are not kept:
 * session id 0 in the answer tells the client to send full requests, which Kafka allows.
 */
export function fetchHandler(s: BrokerServices): ApiHandler<FetchRequest, FetchResponse> {
  return async (req) => {
    const partitions = req.topics.flatMap((t) =>
      t.partitions.map((p) => ({
        topic: t.topic,
        partition: p.partition,
        fetchOffset: p.fetchOffset,
        partitionMaxBytes: p.partitionMaxBytes,
        currentLeaderEpoch: p.currentLeaderEpoch ?? -1,
        logStartOffset: p.logStartOffset ?? -1,
      })),
    );
    // fetch.max.bytes / replica.fetch.response.max.bytes cap what the request asks for (Kafka's KafkaApis).
    const cap = req.replicaId >= 0 ? s.config.replicaFetchResponseMaxBytes : s.config.fetchMaxBytes;
    if (req.maxBytes > cap) s.fetchCapped(req.replicaId >= 0);
    const data = await s.replicaManager.fetchMessages({
      replicaId: req.replicaId,
      maxWaitMs: Math.min(req.maxWaitMs, 30_000),
      minBytes: req.minBytes,
      maxBytes: Math.min(req.maxBytes, cap),
      partitions,
    });
    const byTopic = new Map<string, FetchPartitionData[]>();
    for (const d of data) {
      let list = byTopic.get(d.topic);
      if (!list) byTopic.set(d.topic, (list = []));
      list.push(d);
    }
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      sessionId: 0,
      responses: [...byTopic].map(([topic, parts]) => ({
        topic,
        partitionResponses: parts.map((d) => ({
          partition: d.partition,
          errorCode: d.errorCode,
          highWatermark: d.highWatermark,
          lastStableOffset: d.lastStableOffset,
          logStartOffset: d.logStartOffset,
          abortedTransactions: null,
          preferredReadReplica: -1,
          recordSet: d.records,
        })),
      })),
    };
  };
}
