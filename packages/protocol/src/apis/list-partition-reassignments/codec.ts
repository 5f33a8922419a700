import type { ApiVersionCodec } from '../../api.js';
import { readInt32Array, writeInt32Array } from '../fields.js';
import type { ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse, OngoingPartitionReassignment, OngoingTopicReassignment } from './types.js';

/** ListPartitionReassignments v0, flexible from v0. */
export function listPartitionReassignmentsCodec(v: number): ApiVersionCodec<ListPartitionReassignmentsRequest, ListPartitionReassignmentsResponse> {
  return {
    apiKey: 46,
    version: v,
    flexible: true,
    encodeRequest(w, req) {
      w.int32(req.timeoutMs);
      w.nullableArray(req.topics, (w, t) => {
        w.string(t.name);
        writeInt32Array(w, t.partitionIndexes);
        w.tags();
      });
      w.tags();
    },
    decodeRequest(r) {
      const timeoutMs = r.int32();
      const topics = r.nullableArray((r) => {
        const t = { name: r.string(), partitionIndexes: readInt32Array(r) };
        r.tags();
        return t;
      }, 3);
      r.tags();
      return { timeoutMs, topics };
    },
    encodeResponse(w, res) {
      w.int32(res.throttleTimeMs).int16(res.errorCode).nullableString(res.errorMessage);
      w.array(res.topics, (w, t) => {
        w.string(t.name);
        w.array(t.partitions, (w, p) => {
          w.int32(p.partitionIndex);
          writeInt32Array(w, p.replicas);
          writeInt32Array(w, p.addingReplicas);
          writeInt32Array(w, p.removingReplicas);
          w.tags();
        });
        w.tags();
      });
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = r.int32();
      const errorCode = r.int16();
      const errorMessage = r.nullableString();
      const topics = r.array((r): OngoingTopicReassignment => {
        const name = r.string();
        const partitions = r.array((r): OngoingPartitionReassignment => {
          const p = { partitionIndex: r.int32(), replicas: readInt32Array(r), addingReplicas: readInt32Array(r), removingReplicas: readInt32Array(r) };
          r.tags();
          return p;
        }, 8);
        r.tags();
        return { name, partitions };
      }, 3);
      r.tags();
      return { throttleTimeMs, errorCode, errorMessage, topics };
    },
  };
}
