import type { ApiVersionCodec } from '../../api.js';
import { readInt32Array, writeInt32Array } from '../fields.js';
import type { CreatePartitionsRequest, CreatePartitionsResponse, CreatePartitionsTopic } from './types.js';

/** CreatePartitions v0-1; v1 only changes when the broker throttles (KIP-219). */
export function createPartitionsCodec(v: number): ApiVersionCodec<CreatePartitionsRequest, CreatePartitionsResponse> {
  return {
    apiKey: 37,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      w.array(req.topics, (w, t) => {
        w.string(t.name).int32(t.count);
        w.nullableArray(t.assignments, (w, a) => writeInt32Array(w, a.brokerIds));
      });
      w.int32(req.timeoutMs).bool(req.validateOnly);
    },
    decodeRequest(r) {
      const topics = r.array(
        (r): CreatePartitionsTopic => ({ name: r.string(), count: r.int32(), assignments: r.nullableArray((r) => ({ brokerIds: readInt32Array(r) }), 4) }),
        10,
      );
      return { topics, timeoutMs: r.int32(), validateOnly: r.bool() };
    },
    encodeResponse(w, res) {
      w.int32(res.throttleTimeMs);
      w.array(res.results, (w, t) => w.string(t.name).int16(t.errorCode).nullableString(t.errorMessage));
    },
    decodeResponse(r) {
      const throttleTimeMs = r.int32();
      return { throttleTimeMs, results: r.array((r) => ({ name: r.string(), errorCode: r.int16(), errorMessage: r.nullableString() }), 6) };
    },
  };
}
