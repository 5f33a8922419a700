import type { ApiVersionCodec } from '../../api.js';
import type { ControlledShutdownRequest, ControlledShutdownResponse } from './types.js';

/**
 * ControlledShutdown v0-3; v2 adds the broker epoch, v3 is flexible. v0's request header has no client
 * id (header v0): the frame codecs handle that, the body is the same as v1's.
 */
export function controlledShutdownCodec(v: number): ApiVersionCodec<ControlledShutdownRequest, ControlledShutdownResponse> {
  return {
    apiKey: 7,
    version: v,
    flexible: v >= 3,
    encodeRequest(w, req) {
      w.int32(req.brokerId);
      if (v >= 2) w.int64(req.brokerEpoch ?? -1);
      w.tags();
    },
    decodeRequest(r) {
      const req = { brokerId: r.int32(), brokerEpoch: v >= 2 ? r.int64() : -1 };
      r.tags();
      return req;
    },
    encodeResponse(w, res) {
      w.int16(res.errorCode).array(res.remainingPartitions, (w, p) => w.string(p.topicName).int32(p.partitionIndex).tags());
      w.tags();
    },
    decodeResponse(r) {
      const errorCode = r.int16();
      const remainingPartitions = r.array((r) => {
        const p = { topicName: r.string(), partitionIndex: r.int32() };
        r.tags();
        return p;
      }, 5);
      r.tags();
      return { errorCode, remainingPartitions };
    },
  };
}
