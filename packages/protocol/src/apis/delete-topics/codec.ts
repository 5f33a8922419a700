import type { ApiVersionCodec } from '../../api.js';
import { readStringArray, writeStringArray } from '../fields.js';
import type { DeleteTopicsRequest, DeleteTopicsResponse } from './types.js';

/** DeleteTopics v0-4; v4 is flexible (compact strings and arrays, a tag section ending every struct). */
export function deleteTopicsCodec(v: number): ApiVersionCodec<DeleteTopicsRequest, DeleteTopicsResponse> {
  return {
    apiKey: 20,
    version: v,
    flexible: v >= 4,
    encodeRequest(w, req) {
      writeStringArray(w, req.topicNames);
      w.int32(req.timeoutMs).tags();
    },
    decodeRequest(r) {
      const topicNames = readStringArray(r);
      const timeoutMs = r.int32();
      r.tags();
      return { topicNames, timeoutMs };
    },
    encodeResponse(w, res) {
      if (v >= 1) w.int32(res.throttleTimeMs ?? 0);
      w.array(res.responses, (w, t) => w.string(t.name).int16(t.errorCode).tags());
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 1 ? r.int32() : 0;
      const responses = r.array((r) => {
        const t = { name: r.string(), errorCode: r.int16() };
        r.tags();
        return t;
      }, 3);
      r.tags();
      return { throttleTimeMs, responses };
    },
  };
}
