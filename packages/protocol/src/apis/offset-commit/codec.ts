import type { ApiVersionCodec } from '../../api.js';
import type { OffsetCommitRequest, OffsetCommitResponse } from './types.js';

/** OffsetCommit v0-7 (non-flexible). */
export function offsetCommitCodec(v: number): ApiVersionCodec<OffsetCommitRequest, OffsetCommitResponse> {
  return {
    apiKey: 8,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      w.string(req.groupId);
      if (v >= 1) w.int32(req.generationId).string(req.memberId);
      if (v >= 7) w.nullableString(req.groupInstanceId);
      if (v >= 2 && v <= 4) w.int64(req.retentionTimeMs);
      w.array(req.topics, (w, t) => {
        w.string(t.name);
        w.array(t.partitions, (w, p) => {
          w.int32(p.partitionIndex).int64(p.committedOffset);
          if (v >= 6) w.int32(p.committedLeaderEpoch);
          if (v === 1) w.int64(p.commitTimestamp);
          w.nullableString(p.committedMetadata);
        });
      });
    },
    decodeRequest(r) {
      const groupId = r.string();
      const generationId = v >= 1 ? r.int32() : -1;
      const memberId = v >= 1 ? r.string() : '';
      const groupInstanceId = v >= 7 ? r.nullableString() : null;
      const retentionTimeMs = v >= 2 && v <= 4 ? r.int64() : -1;
      const topics = r.array(
        (r) => ({
          name: r.string(),
          partitions: r.array(
            (r) => ({
              partitionIndex: r.int32(),
              committedOffset: r.int64(),
              committedLeaderEpoch: v >= 6 ? r.int32() : -1,
              commitTimestamp: v === 1 ? r.int64() : -1,
              committedMetadata: r.nullableString(),
            }),
            14,
          ),
        }),
        6,
      );
      return { groupId, generationId, memberId, groupInstanceId, retentionTimeMs, topics };
    },
    encodeResponse(w, res) {
      if (v >= 3) w.int32(res.throttleTimeMs);
      w.array(res.topics, (w, t) => {
        w.string(t.name);
        w.array(t.partitions, (w, p) => w.int32(p.partitionIndex).int16(p.errorCode));
      });
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 3 ? r.int32() : 0;
      const topics = r.array((r) => ({ name: r.string(), partitions: r.array((r) => ({ partitionIndex: r.int32(), errorCode: r.int16() }), 6) }), 6);
      return { throttleTimeMs, topics };
    },
  };
}
