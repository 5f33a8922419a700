import type { ApiVersionCodec } from '../../api.js';
import type { DescribeLogDirsRequest, DescribeLogDirsResponse } from './types.js';

/** DescribeLogDirs v0-2; v2 is flexible. The request's topic list is nullable in every version (null = all). */
export function describeLogDirsCodec(v: number): ApiVersionCodec<DescribeLogDirsRequest, DescribeLogDirsResponse> {
  return {
    apiKey: 35,
    version: v,
    flexible: v >= 2,
    encodeRequest(w, req) {
      w.nullableArray(req.topics, (w, t) => {
        w.string(t.topic);
        w.array(t.partitions, (w, p) => w.int32(p));
        w.tags();
      });
      w.tags();
    },
    decodeRequest(r) {
      const topics = r.nullableArray((r) => {
        const t = { topic: r.string(), partitions: r.array((r) => r.int32(), 4) };
        r.tags();
        return t;
      }, 2);
      r.tags();
      return { topics };
    },
    encodeResponse(w, res) {
      w.int32(res.throttleTimeMs);
      w.array(res.results, (w, d) => {
        w.int16(d.errorCode).string(d.logDir);
        w.array(d.topics, (w, t) => {
          w.string(t.name);
          w.array(t.partitions, (w, p) => w.int32(p.partitionIndex).int64(p.partitionSize).int64(p.offsetLag).bool(p.isFutureKey).tags());
          w.tags();
        });
        w.tags();
      });
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = r.int32();
      const results = r.array((r) => {
        const errorCode = r.int16();
        const logDir = r.string();
        const topics = r.array((r) => {
          const name = r.string();
          const partitions = r.array((r) => {
            const p = { partitionIndex: r.int32(), partitionSize: r.int64(), offsetLag: r.int64(), isFutureKey: r.bool() };
            r.tags();
            return p;
          }, 21);
          r.tags();
          return { name, partitions };
        }, 2);
        r.tags();
        return { errorCode, logDir, topics };
      }, 4);
      r.tags();
      return { throttleTimeMs, results };
    },
  };
}
