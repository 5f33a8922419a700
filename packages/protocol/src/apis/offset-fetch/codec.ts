import type { ApiVersionCodec } from '../../api.js';
import type { Reader } from '../../primitives/reader.js';
import type { Writer } from '../../primitives/writer.js';
import { readInt32Array, writeInt32Array } from '../fields.js';
import type { OffsetFetchRequest, OffsetFetchRequestTopic, OffsetFetchResponse } from './types.js';

/** OffsetFetch v0-5 (non-flexible; v6+ are flexible and not offered, see the reference §5.3). */
export function offsetFetchCodec(v: number): ApiVersionCodec<OffsetFetchRequest, OffsetFetchResponse> {
  const writeTopic = (w: Writer, t: OffsetFetchRequestTopic) => {
    w.string(t.name);
    writeInt32Array(w, t.partitionIndexes);
  };
  return {
    apiKey: 9,
    version: v,
    flexible: false,
    encodeRequest(w, req) {
      w.string(req.groupId);
      if (v >= 2) w.nullableArray(req.topics, writeTopic);
      else w.array(req.topics ?? [], writeTopic);
    },
    decodeRequest(r) {
      const groupId = r.string();
      const readTopic = (r: Reader): OffsetFetchRequestTopic => ({ name: r.string(), partitionIndexes: readInt32Array(r) });
      const topics = v >= 2 ? r.nullableArray(readTopic, 6) : r.array(readTopic, 6);
      return { groupId, topics };
    },
    encodeResponse(w, res) {
      if (v >= 3) w.int32(res.throttleTimeMs);
      w.array(res.topics, (w, t) => {
        w.string(t.name);
        w.array(t.partitions, (w, p) => {
          w.int32(p.partitionIndex).int64(p.committedOffset);
          if (v >= 5) w.int32(p.committedLeaderEpoch);
          w.nullableString(p.metadata).int16(p.errorCode);
        });
      });
      if (v >= 2) w.int16(res.errorCode);
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 3 ? r.int32() : 0;
      const topics = r.array(
        (r) => ({
          name: r.string(),
          partitions: r.array(
            (r) => ({
              partitionIndex: r.int32(),
              committedOffset: r.int64(),
              committedLeaderEpoch: v >= 5 ? r.int32() : -1,
              metadata: r.nullableString(),
              errorCode: r.int16(),
            }),
            16,
          ),
        }),
        6,
      );
      return { throttleTimeMs, topics, errorCode: v >= 2 ? r.int16() : 0 };
    },
  };
}
