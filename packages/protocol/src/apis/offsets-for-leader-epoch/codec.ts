import type { ApiVersionCodec } from '../../api.js';
import type { EpochEndOffset, OffsetForLeaderPartition, OffsetsForLeaderEpochRequest, OffsetsForLeaderEpochResponse } from './types.js';

/** OffsetsForLeaderEpoch v0-3 (non-flexible). */
export function offsetsForLeaderEpochCodec(v: number): ApiVersionCodec<OffsetsForLeaderEpochRequest, OffsetsForLeaderEpochResponse> {
  return {
    apiKey: 23,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      if (v >= 3) w.int32(req.replicaId ?? -2);
      w.array(req.topics, (w, t) => {
        w.string(t.topic).array(t.partitions, (w, p) => {
          w.int32(p.partition);
          if (v >= 2) w.int32(p.currentLeaderEpoch ?? -1);
          w.int32(p.leaderEpoch);
        });
      });
    },
    decodeRequest(r) {
      const replicaId = v >= 3 ? r.int32() : -2;
      const topics = r.array(
        (r) => ({
          topic: r.string(),
          partitions: r.array(
            (r): OffsetForLeaderPartition => ({ partition: r.int32(), currentLeaderEpoch: v >= 2 ? r.int32() : -1, leaderEpoch: r.int32() }),
            8,
          ),
        }),
        6,
      );
      return { replicaId, topics };
    },
    encodeResponse(w, res) {
      if (v >= 2) w.int32(res.throttleTimeMs ?? 0);
      w.array(res.topics, (w, t) => {
        w.string(t.topic).array(t.partitions, (w, p) => {
          w.int16(p.errorCode).int32(p.partition);
          if (v >= 1) w.int32(p.leaderEpoch ?? -1);
          w.int64(p.endOffset);
        });
      });
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 2 ? r.int32() : 0;
      const topics = r.array(
        (r) => ({
          topic: r.string(),
          partitions: r.array(
            (r): EpochEndOffset => ({ errorCode: r.int16(), partition: r.int32(), leaderEpoch: v >= 1 ? r.int32() : -1, endOffset: r.int64() }),
            14,
          ),
        }),
        6,
      );
      return { throttleTimeMs, topics };
    },
  };
}
