import type { ApiVersionCodec } from '../../api.js';
import type { DeleteRecordsRequest, DeleteRecordsResponse } from './types.js';

/** DeleteRecords v0-2; v2 is flexible (compact arrays and strings, a tag section ending every struct). */
export function deleteRecordsCodec(v: number): ApiVersionCodec<DeleteRecordsRequest, DeleteRecordsResponse> {
  return {
    apiKey: 21,
    version: v,
    flexible: v >= 2,
    encodeRequest(w, req) {
      w.array(req.topics, (w, t) => {
        w.string(t.name);
        w.array(t.partitions, (w, p) => w.int32(p.partitionIndex).int64(p.offset).tags());
        w.tags();
      });
      w.int32(req.timeoutMs).tags();
    },
    decodeRequest(r) {
      const topics = r.array((r) => {
        const name = r.string();
        const partitions = r.array((r) => {
          const p = { partitionIndex: r.int32(), offset: r.int64() };
          r.tags();
          return p;
        }, 12);
        r.tags();
        return { name, partitions };
      }, 2);
      const timeoutMs = r.int32();
      r.tags();
      return { topics, timeoutMs };
    },
    encodeResponse(w, res) {
      w.int32(res.throttleTimeMs);
      w.array(res.topics, (w, t) => {
        w.string(t.name);
        w.array(t.partitions, (w, p) => w.int32(p.partitionIndex).int64(p.lowWatermark).int16(p.errorCode).tags());
        w.tags();
      });
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = r.int32();
      const topics = r.array((r) => {
        const name = r.string();
        const partitions = r.array((r) => {
          const p = { partitionIndex: r.int32(), lowWatermark: r.int64(), errorCode: r.int16() };
          r.tags();
          return p;
        }, 14);
        r.tags();
        return { name, partitions };
      }, 2);
      r.tags();
      return { throttleTimeMs, topics };
    },
  };
}
