import type { ApiVersionCodec } from '../../api.js';
import type { Reader } from '../../primitives/reader.js';
import type { Writer } from '../../primitives/writer.js';
import { readInt32Array, writeInt32Array } from '../fields.js';
import type { OffsetFetchRequest, OffsetFetchRequestTopic, OffsetFetchResponse } from './types.js';

/** OffsetFetch v0-6; v6 is flexible (compact strings and arrays, a tag section ending every struct). */
export function offsetFetchCodec(v: number): ApiVersionCodec<OffsetFetchRequest, OffsetFetchResponse> {
  const writeTopic = (w: Writer, t: OffsetFetchRequestTopic) => {
    w.string(t.name);
    writeInt32Array(w, t.partitionIndexes);
    w.tags();
  };
  const readTopic = (r: Reader): OffsetFetchRequestTopic => {
    const t = { name: r.string(), partitionIndexes: readInt32Array(r) };
    r.tags();
    return t;
  };
  return {
    apiKey: 9,
    version: v,
    flexible: v >= 6,
    encodeRequest(w, req) {
      w.string(req.groupId);
      if (v >= 2) w.nullableArray(req.topics, writeTopic);
      else w.array(req.topics ?? [], writeTopic);
      w.tags();
    },
    decodeRequest(r) {
      const groupId = r.string();
      const topics = v >= 2 ? r.nullableArray(readTopic, 2) : r.array(readTopic, 2);
      r.tags();
      return { groupId, topics };
    },
    encodeResponse(w, res) {
      if (v >= 3) w.int32(res.throttleTimeMs);
      w.array(res.topics, (w, t) => {
        w.string(t.name);
        w.array(t.partitions, (w, p) => {
          w.int32(p.partitionIndex).int64(p.committedOffset);
          if (v >= 5) w.int32(p.committedLeaderEpoch);
          w.nullableString(p.metadata).int16(p.errorCode).tags();
        });
        w.tags();
      });
      if (v >= 2) w.int16(res.errorCode);
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 3 ? r.int32() : 0;
      const topics = r.array((r) => {
        const name = r.string();
        const partitions = r.array((r) => {
          const p = {
            partitionIndex: r.int32(),
            committedOffset: r.int64(),
            committedLeaderEpoch: v >= 5 ? r.int32() : -1,
            metadata: r.nullableString(),
            errorCode: r.int16(),
          };
          r.tags();
          return p;
        }, 15);
        r.tags();
        return { name, partitions };
      }, 2);
      const errorCode = v >= 2 ? r.int16() : 0;
      r.tags();
      return { throttleTimeMs, topics, errorCode };
    },
  };
}
