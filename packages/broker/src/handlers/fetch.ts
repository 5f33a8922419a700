import { ErrorCode } from '@gregor/common';
import type { FetchRequest, FetchResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { FetchPartitionData } from '../cluster/replica-manager.js';
import type { ApiHandler } from '../kafka-apis.js';
import { downConvertFetch, fetchMagic } from '../cluster/message-format.js';

/**
 * Fetch for consumers (replica id -1: up to the high watermark) and followers (their broker id:
 * up to the log end). Long-polls up to max_wait_ms for min_bytes. Fetch sessions (KIP-227, v7+):
 * the FetchManager decides from (session_id, epoch) whether this is a sessionless, full or
 * incremental fetch; an incremental one reads (and long-polls on) every partition of its session
 * and answers only the partitions with news. Fetch v0-3 answers are down-converted to message
 * format v0/v1.
 */
export function fetchHandler(s: BrokerServices): ApiHandler<FetchRequest, FetchResponse> {
  return async (req, ctx) => {
    const magic = fetchMagic(ctx.apiVersion);
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
    const maxBytes = Math.min(req.maxBytes, cap);
    const context = s.fetchManager.newContext({
      sessionId: req.sessionId ?? 0,
      epoch: req.sessionEpoch ?? -1,
      partitions,
      forgotten: (req.forgottenTopicsData ?? []).flatMap((t) => t.partitions.map((partition) => ({ topic: t.topic, partition }))),
      isFollower: req.replicaId >= 0,
    });
    let data =
      context.kind === 'error'
        ? []
        : await s.replicaManager.fetchMessages({
            replicaId: req.replicaId,
            maxWaitMs: Math.min(req.maxWaitMs, 30_000),
            minBytes: req.minBytes,
            maxBytes,
            partitions: context.partitions,
            minOneBatchPerPartition: magic < 2,
            // Pooled reads: the socket server gives the buffers back once the response is flushed.
            readPool: s.readPool,
          });
    if (magic < 2) {
      // Fetch v0-3 has no sessions, so the context's partitions are the request's; fetchMessages answers one
      // entry per requested partition, in order.
      const requested = context.partitions;
      const fetched = data.map((d, i) => ({ ...d, fetchOffset: requested[i]!.fetchOffset, partitionMaxBytes: requested[i]!.partitionMaxBytes }));
      // message.downconversion.enable=false: consumers (not followers) get UNSUPPORTED_VERSION (KIP-283).
      if (req.replicaId < 0) {
        for (const d of fetched) {
          if (d.errorCode === ErrorCode.NONE && !s.topicConfigs.get(d.topic).messageDownconversionEnable) {
            Object.assign(d, { errorCode: ErrorCode.UNSUPPORTED_VERSION, highWatermark: -1, lastStableOffset: -1, logStartOffset: -1, records: Buffer.alloc(0) });
          }
        }
      }
      downConvertFetch(fetched, ctx.apiVersion, maxBytes);
      data = fetched;
    }
    const { errorCode, sessionId, partitions: answered } = context.respond(data);
    const byTopic = new Map<string, FetchPartitionData[]>();
    for (const d of answered) {
      let list = byTopic.get(d.topic);
      if (!list) byTopic.set(d.topic, (list = []));
      list.push(d);
    }
    return {
      throttleTimeMs: 0,
      errorCode,
      sessionId,
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
