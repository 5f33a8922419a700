import type { ApiVersionCodec } from '../../api.js';
import type { PartitionProduceResponse, ProduceRequest, ProduceResponse, TopicProduceData, TopicProduceResponse } from './types.js';

/** Produce v3-8 (RecordBatch v2 only; never flexible in 2.4); v8 adds record_errors and error_message (KIP-467). */
export function produceCodec(v: number): ApiVersionCodec<ProduceRequest, ProduceResponse> {
  return {
    apiKey: 0,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      w.nullableString(req.transactionalId).int16(req.acks).int32(req.timeoutMs);
      w.array(req.topicData, (w, t) => {
        w.string(t.name).array(t.partitionData, (w, p) => w.int32(p.index).nullableBytes(p.records));
      });
    },
    decodeRequest(r) {
      const transactionalId = r.nullableString();
      const acks = r.int16();
      const timeoutMs = r.int32();
      const topicData = r.array(
        (r): TopicProduceData => ({
          name: r.string(),
          partitionData: r.array((r) => ({ index: r.int32(), records: r.nullableBytes() }), 8),
        }),
        6,
      );
      return { transactionalId, acks, timeoutMs, topicData };
    },
    encodeResponse(w, res) {
      w.array(res.responses, (w, t) => {
        w.string(t.name).array(t.partitionResponses, (w, p) => {
          w.int32(p.index).int16(p.errorCode).int64(p.baseOffset).int64(p.logAppendTimeMs);
          if (v >= 5) w.int64(p.logStartOffset ?? -1);
          if (v >= 8) {
            w.array(p.recordErrors ?? [], (w, e) => w.int32(e.batchIndex).nullableString(e.batchIndexErrorMessage));
            w.nullableString(p.errorMessage ?? null);
          }
        });
      });
      w.int32(res.throttleTimeMs);
    },
    decodeResponse(r) {
      const responses = r.array(
        (r): TopicProduceResponse => ({
          name: r.string(),
          partitionResponses: r.array(
            (r): PartitionProduceResponse => ({
              index: r.int32(),
              errorCode: r.int16(),
              baseOffset: r.int64(),
              logAppendTimeMs: r.int64(),
              logStartOffset: v >= 5 ? r.int64() : -1,
              recordErrors: v >= 8 ? r.array((r) => ({ batchIndex: r.int32(), batchIndexErrorMessage: r.nullableString() }), 6) : [],
              errorMessage: v >= 8 ? r.nullableString() : null,
            }),
            22,
          ),
        }),
        6,
      );
      return { responses, throttleTimeMs: r.int32() };
    },
  };
}
