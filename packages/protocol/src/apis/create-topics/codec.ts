import type { ApiVersionCodec } from '../../api.js';
import { readInt32Array, writeInt32Array } from '../fields.js';
import type { CreatableTopic, CreateTopicsRequest, CreateTopicsResponse } from './types.js';

/** CreateTopics v0-4 (non-flexible). */
export function createTopicsCodec(v: number): ApiVersionCodec<CreateTopicsRequest, CreateTopicsResponse> {
  return {
    apiKey: 19,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      w.array(req.topics, (w, t) => {
        w.string(t.name).int32(t.numPartitions).int16(t.replicationFactor);
        w.array(t.assignments, (w, a) => {
          w.int32(a.partitionIndex);
          writeInt32Array(w, a.brokerIds);
        });
        w.array(t.configs, (w, c) => w.string(c.name).nullableString(c.value));
      });
      w.int32(req.timeoutMs);
      if (v >= 1) w.bool(req.validateOnly ?? false);
    },
    decodeRequest(r) {
      const topics = r.array(
        (r): CreatableTopic => ({
          name: r.string(),
          numPartitions: r.int32(),
          replicationFactor: r.int16(),
          assignments: r.array((r) => ({ partitionIndex: r.int32(), brokerIds: readInt32Array(r) }), 8),
          configs: r.array((r) => ({ name: r.string(), value: r.nullableString() }), 4),
        }),
        16,
      );
      const timeoutMs = r.int32();
      const validateOnly = v >= 1 ? r.bool() : false;
      return { topics, timeoutMs, validateOnly };
    },
    encodeResponse(w, res) {
      if (v >= 2) w.int32(res.throttleTimeMs ?? 0);
      w.array(res.topics, (w, t) => {
        w.string(t.name).int16(t.errorCode);
        if (v >= 1) w.nullableString(t.errorMessage ?? null);
      });
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 2 ? r.int32() : 0;
      const topics = r.array((r) => ({ name: r.string(), errorCode: r.int16(), errorMessage: v >= 1 ? r.nullableString() : null }), 4);
      return { throttleTimeMs, topics };
    },
  };
}
