import type { ApiVersionCodec } from '../../api.js';
import { readInt32Array, writeInt32Array } from '../fields.js';
import type { FetchablePartitionResponse, FetchableTopicResponse, FetchPartition, FetchRequest, FetchResponse, FetchTopic } from './types.js';

/** What Kafka uses as max_bytes for Fetch v0-2, which have none (FetchRequest.DEFAULT_RESPONSE_MAX_BYTES). */
export const FETCH_DEFAULT_RESPONSE_MAX_BYTES = 0x7fffffff;

const EMPTY = Buffer.alloc(0);

/**
 * Fetch v0-11 (non-flexible). Record sets are passed through as views, never decoded. v0 has no
 * throttle_time_ms; v3 adds max_bytes; v4 isolation_level, last_stable_offset and aborted_transactions.
 * Records are magic 0 for v0-1, magic 1 for v2-3, RecordBatch v2 from v4.
 */
export function fetchCodec(v: number): ApiVersionCodec<FetchRequest, FetchResponse> {
  return {
    apiKey: 1,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      w.int32(req.replicaId).int32(req.maxWaitMs).int32(req.minBytes);
      if (v >= 3) w.int32(req.maxBytes);
      if (v >= 4) w.int8(req.isolationLevel);
      if (v >= 7) w.int32(req.sessionId ?? 0).int32(req.sessionEpoch ?? -1);
      w.array(req.topics, (w, t) => {
        w.string(t.topic).array(t.partitions, (w, p) => {
          w.int32(p.partition);
          if (v >= 9) w.int32(p.currentLeaderEpoch ?? -1);
          w.int64(p.fetchOffset);
          if (v >= 5) w.int64(p.logStartOffset ?? -1);
          w.int32(p.partitionMaxBytes);
        });
      });
      if (v >= 7) w.array(req.forgottenTopicsData ?? [], (w, t) => {
        w.string(t.topic);
        writeInt32Array(w, t.partitions);
      });
      if (v >= 11) w.string(req.rackId ?? '');
    },
    decodeRequest(r) {
      const replicaId = r.int32();
      const maxWaitMs = r.int32();
      const minBytes = r.int32();
      const maxBytes = v >= 3 ? r.int32() : FETCH_DEFAULT_RESPONSE_MAX_BYTES;
      const isolationLevel = v >= 4 ? r.int8() : 0;
      const sessionId = v >= 7 ? r.int32() : 0;
      const sessionEpoch = v >= 7 ? r.int32() : -1;
      const topics = r.array(
        (r): FetchTopic => ({
          topic: r.string(),
          partitions: r.array(
            (r): FetchPartition => ({
              partition: r.int32(),
              currentLeaderEpoch: v >= 9 ? r.int32() : -1,
              fetchOffset: r.int64(),
              logStartOffset: v >= 5 ? r.int64() : -1,
              partitionMaxBytes: r.int32(),
            }),
            16,
          ),
        }),
        6,
      );
      const forgottenTopicsData = v >= 7 ? r.array((r) => ({ topic: r.string(), partitions: readInt32Array(r) }), 6) : [];
      const rackId = v >= 11 ? r.string() : '';
      return { replicaId, maxWaitMs, minBytes, maxBytes, isolationLevel, sessionId, sessionEpoch, topics, forgottenTopicsData, rackId };
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs);
      if (v >= 7) w.int16(res.errorCode ?? 0).int32(res.sessionId ?? 0);
      w.array(res.responses, (w, t) => {
        w.string(t.topic).array(t.partitionResponses, (w, p) => {
          w.int32(p.partition).int16(p.errorCode).int64(p.highWatermark);
          if (v >= 4) w.int64(p.lastStableOffset);
          if (v >= 5) w.int64(p.logStartOffset ?? -1);
          if (v >= 4) w.nullableArray(p.abortedTransactions, (w, a) => w.int64(a.producerId).int64(a.firstOffset));
          if (v >= 11) w.int32(p.preferredReadReplica ?? -1);
          // Always a record set, empty when there is none, as Kafka writes MemoryRecords.EMPTY: librdkafka
          // rejects the whole response over one null (size -1) record set ("invalid MessageSetSize -1").
          w.bytes(p.recordSet ?? EMPTY);
        });
      });
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      const errorCode = v >= 7 ? r.int16() : 0;
      const sessionId = v >= 7 ? r.int32() : 0;
      const responses = r.array(
        (r): FetchableTopicResponse => ({
          topic: r.string(),
          partitionResponses: r.array(
            (r): FetchablePartitionResponse => ({
              partition: r.int32(),
              errorCode: r.int16(),
              highWatermark: r.int64(),
              lastStableOffset: v >= 4 ? r.int64() : -1,
              logStartOffset: v >= 5 ? r.int64() : -1,
              abortedTransactions: v >= 4 ? r.nullableArray((r) => ({ producerId: r.int64(), firstOffset: r.int64() }), 16) : null,
              preferredReadReplica: v >= 11 ? r.int32() : -1,
              recordSet: r.nullableBytes(),
            }),
            v >= 4 ? 30 : 18,
          ),
        }),
        6,
      );
      return { throttleTimeMs, errorCode, sessionId, responses };
    },
  };
}
