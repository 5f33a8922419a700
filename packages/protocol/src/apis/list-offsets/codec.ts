import type { ApiVersionCodec } from '../../api.js';
import type { ListOffsetsPartition, ListOffsetsPartitionResponse, ListOffsetsRequest, ListOffsetsResponse } from './types.js';

/** ListOffsets v0-5 (never flexible in 2.4); v0 asks for up to max_num_offsets offsets and gets old_style_offsets. */
export function listOffsetsCodec(v: number): ApiVersionCodec<ListOffsetsRequest, ListOffsetsResponse> {
  return {
    apiKey: 2,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      w.int32(req.replicaId);
      if (v >= 2) w.int8(req.isolationLevel ?? 0);
      w.array(req.topics, (w, t) => {
        w.string(t.name).array(t.partitions, (w, p) => {
          w.int32(p.partitionIndex);
          if (v >= 4) w.int32(p.currentLeaderEpoch ?? -1);
          w.int64(p.timestamp);
          if (v === 0) w.int32(p.maxNumOffsets ?? 1);
        });
      });
    },
    decodeRequest(r) {
      const replicaId = r.int32();
      const isolationLevel = v >= 2 ? r.int8() : 0;
      const topics = r.array(
        (r) => ({
          name: r.string(),
          partitions: r.array(
            (r): ListOffsetsPartition => ({
              partitionIndex: r.int32(),
              currentLeaderEpoch: v >= 4 ? r.int32() : -1,
              timestamp: r.int64(),
              maxNumOffsets: v === 0 ? r.int32() : 1,
            }),
            12,
          ),
        }),
        6,
      );
      return { replicaId, isolationLevel, topics };
    },
    encodeResponse(w, res) {
      if (v >= 2) w.int32(res.throttleTimeMs ?? 0);
      w.array(res.topics, (w, t) => {
        w.string(t.name).array(t.partitions, (w, p) => {
          w.int32(p.partitionIndex).int16(p.errorCode);
          if (v === 0) w.array(p.oldStyleOffsets ?? [], (w, o) => w.int64(o));
          else w.int64(p.timestamp).int64(p.offset);
          if (v >= 4) w.int32(p.leaderEpoch ?? -1);
        });
      });
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 2 ? r.int32() : 0;
      const topics = r.array(
        (r) => ({
          name: r.string(),
          partitions: r.array(
            (r): ListOffsetsPartitionResponse => ({
              partitionIndex: r.int32(),
              errorCode: r.int16(),
              oldStyleOffsets: v === 0 ? r.array((r) => r.int64(), 8) : [],
              timestamp: v >= 1 ? r.int64() : -1,
              offset: v >= 1 ? r.int64() : -1,
              leaderEpoch: v >= 4 ? r.int32() : -1,
            }),
            10,
          ),
        }),
        6,
      );
      return { throttleTimeMs, topics };
    },
  };
}
