import type { ApiVersionCodec } from '../../api.js';
import type { AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse, ReassignablePartitionResponse, ReassignableTopicResponse } from './types.js';

/** AlterPartitionReassignments v0, flexible from v0. */
export function alterPartitionReassignmentsCodec(v: number): ApiVersionCodec<AlterPartitionReassignmentsRequest, AlterPartitionReassignmentsResponse> {
  return {
    apiKey: 45,
    version: v,
    flexible: true,
    encodeRequest(w, req) {
      w.int32(req.timeoutMs);
      w.array(req.topics, (w, t) => {
        w.string(t.name);
        w.array(t.partitions, (w, p) => {
          w.int32(p.partitionIndex);
          w.nullableArray(p.replicas, (w, b) => w.int32(b));
          w.tags();
        });
        w.tags();
      });
      w.tags();
    },
    decodeRequest(r) {
      const timeoutMs = r.int32();
      const topics = r.array((r) => {
        const name = r.string();
        const partitions = r.array((r) => {
          const p = { partitionIndex: r.int32(), replicas: r.nullableArray((r) => r.int32(), 4) };
          r.tags();
          return p;
        }, 6);
        r.tags();
        return { name, partitions };
      }, 3);
      r.tags();
      return { timeoutMs, topics };
    },
    encodeResponse(w, res) {
      w.int32(res.throttleTimeMs).int16(res.errorCode).nullableString(res.errorMessage);
      w.array(res.responses, (w, t) => {
        w.string(t.name);
        w.array(t.partitions, (w, p) => w.int32(p.partitionIndex).int16(p.errorCode).nullableString(p.errorMessage).tags());
        w.tags();
      });
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = r.int32();
      const errorCode = r.int16();
      const errorMessage = r.nullableString();
      const responses = r.array((r): ReassignableTopicResponse => {
        const name = r.string();
        const partitions = r.array((r): ReassignablePartitionResponse => {
          const p = { partitionIndex: r.int32(), errorCode: r.int16(), errorMessage: r.nullableString() };
          r.tags();
          return p;
        }, 8);
        r.tags();
        return { name, partitions };
      }, 3);
      r.tags();
      return { throttleTimeMs, errorCode, errorMessage, responses };
    },
  };
}
