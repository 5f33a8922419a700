import type { ApiVersionCodec } from '../../api.js';
import { readStringArray, writeStringArray } from '../fields.js';
import type { DeleteTopicsRequest, DeleteTopicsResponse } from './types.js';

/** DeleteTopics v0-3 (non-flexible). */
export function deleteTopicsCodec(v: number): ApiVersionCodec<DeleteTopicsRequest, DeleteTopicsResponse> {
  return {
    apiKey: 20,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      writeStringArray(w, req.topicNames);
      w.int32(req.timeoutMs);
    },
    decodeRequest(r) {
      return { topicNames: readStringArray(r), timeoutMs: r.int32() };
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs ?? 0);
      w.array(res.responses, (w, t) => w.string(t.name).int16(t.errorCode));
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      return { throttleTimeMs, responses: r.array((r) => ({ name: r.string(), errorCode: r.int16() }), 4) };
    },
  };
}
