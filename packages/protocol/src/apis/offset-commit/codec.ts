import type { ApiVersionCodec } from '../../api.js';
import type { OffsetCommitRequest, OffsetCommitResponse } from './types.js';

/** OffsetCommit v0-8; v8 is flexible (compact strings and arrays, a tag section ending every struct). */
export function offsetCommitCodec(v: number): ApiVersionCodec<OffsetCommitRequest, OffsetCommitResponse> {
  return {
    apiKey: 8,
    version: v,
    flexible: v >= 8,
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
          w.nullableString(p.committedMetadata).tags();
        });
        w.tags();
      });
      w.tags();
    },
    decodeRequest(r) {
      const groupId = r.string();
      const generationId = v >= 1 ? r.int32() : -1;
      const memberId = v >= 1 ? r.string() : '';
      const groupInstanceId = v >= 7 ? r.nullableString() : null;
      const retentionTimeMs = v >= 2 && v <= 4 ? r.int64() : -1;
      const topics = r.array((r) => {
        const name = r.string();
        const partitions = r.array((r) => {
          const p = {
            partitionIndex: r.int32(),
            committedOffset: r.int64(),
            committedLeaderEpoch: v >= 6 ? r.int32() : -1,
            commitTimestamp: v === 1 ? r.int64() : -1,
            committedMetadata: r.nullableString(),
          };
          r.tags();
          return p;
        }, 13);
        r.tags();
        return { name, partitions };
      }, 2);
      r.tags();
      return { groupId, generationId, memberId, groupInstanceId, retentionTimeMs, topics };
    },
    encodeResponse(w, res) {
      if (v >= 3) w.int32(res.throttleTimeMs);
      w.array(res.topics, (w, t) => {
        w.string(t.name);
        w.array(t.partitions, (w, p) => w.int32(p.partitionIndex).int16(p.errorCode).tags());
        w.tags();
      });
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 3 ? r.int32() : 0;
      const topics = r.array((r) => {
        const name = r.string();
        const partitions = r.array((r) => {
          const p = { partitionIndex: r.int32(), errorCode: r.int16() };
          r.tags();
          return p;
        }, 6);
        r.tags();
        return { name, partitions };
      }, 2);
      r.tags();
      return { throttleTimeMs, topics };
    },
  };
}
