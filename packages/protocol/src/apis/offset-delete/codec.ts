import type { ApiVersionCodec } from '../../api.js';
import type { OffsetDeleteRequest, OffsetDeleteResponse } from './types.js';

/** OffsetDelete v0 (never flexible in Kafka 2.4-2.8). The response has the error code before the throttle time. */
export function offsetDeleteCodec(v: number): ApiVersionCodec<OffsetDeleteRequest, OffsetDeleteResponse> {
  return {
    apiKey: 47,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      w.string(req.groupId);
      w.array(req.topics, (w, t) => w.string(t.name).array(t.partitions, (w, p) => w.int32(p.partitionIndex)));
    },
    decodeRequest(r) {
      const groupId = r.string();
      const topics = r.array((r) => ({ name: r.string(), partitions: r.array((r) => ({ partitionIndex: r.int32() }), 4) }), 6);
      return { groupId, topics };
    },
    encodeResponse(w, res) {
      w.int16(res.errorCode).int32(res.throttleTimeMs);
      w.array(res.topics, (w, t) => w.string(t.name).array(t.partitions, (w, p) => w.int32(p.partitionIndex).int16(p.errorCode)));
    },
    decodeResponse(r) {
      const errorCode = r.int16();
      const throttleTimeMs = r.int32();
      const topics = r.array((r) => ({ name: r.string(), partitions: r.array((r) => ({ partitionIndex: r.int32(), errorCode: r.int16() }), 6) }), 6);
      return { errorCode, throttleTimeMs, topics };
    },
  };
}
