import type { ApiVersionCodec } from '../../api.js';
import type { InitProducerIdRequest, InitProducerIdResponse } from './types.js';

/**
 * InitProducerId v0-2: the same fields in every version; v2 is flexible (compact nullable string,
 * a tagged-field section at the end of each body). v1 changed only throttling (KIP-219).
 */
export function initProducerIdCodec(v: number): ApiVersionCodec<InitProducerIdRequest, InitProducerIdResponse> {
  return {
    apiKey: 22,
    version: v,
    flexible: v >= 2,
    encodeRequest(w, req) {
      w.nullableString(req.transactionalId).int32(req.transactionTimeoutMs).tags();
    },
    decodeRequest(r) {
      const transactionalId = r.nullableString();
      const transactionTimeoutMs = r.int32();
      r.tags();
      return { transactionalId, transactionTimeoutMs };
    },
    encodeResponse(w, res) {
      w.int32(res.throttleTimeMs).int16(res.errorCode).int64(res.producerId).int16(res.producerEpoch).tags();
    },
    decodeResponse(r) {
      const res = { throttleTimeMs: r.int32(), errorCode: r.int16(), producerId: r.int64(), producerEpoch: r.int16() };
      r.tags();
      return res;
    },
  };
}
