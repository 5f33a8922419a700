import type { ApiVersionCodec } from '../../api.js';
import { readInt32Array, writeInt32Array } from '../fields.js';
import type { ElectLeadersPartitionResult, ElectLeadersReplicaElectionResult, ElectLeadersRequest, ElectLeadersResponse } from './types.js';

/** ElectLeaders v0-2: v1 adds the election type and a top-level error code; v2 is flexible. */
export function electLeadersCodec(v: number): ApiVersionCodec<ElectLeadersRequest, ElectLeadersResponse> {
  return {
    apiKey: 43,
    version: v,
    flexible: v >= 2,
    encodeRequest(w, req) {
      if (v >= 1) w.int8(req.electionType ?? 0);
      w.nullableArray(req.topicPartitions, (w, t) => {
        w.string(t.topic);
        writeInt32Array(w, t.partitionId);
        w.tags();
      });
      w.int32(req.timeoutMs).tags();
    },
    decodeRequest(r) {
      const electionType = v >= 1 ? r.int8() : 0;
      const topicPartitions = r.nullableArray((r) => {
        const t = { topic: r.string(), partitionId: readInt32Array(r) };
        r.tags();
        return t;
      }, 2);
      const timeoutMs = r.int32();
      r.tags();
      return { electionType, topicPartitions, timeoutMs };
    },
    encodeResponse(w, res) {
      w.int32(res.throttleTimeMs);
      if (v >= 1) w.int16(res.errorCode ?? 0);
      w.array(res.replicaElectionResults, (w, t) => {
        w.string(t.topic);
        w.array(t.partitionResult, (w, p) => w.int32(p.partitionId).int16(p.errorCode).nullableString(p.errorMessage).tags());
        w.tags();
      });
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = r.int32();
      const errorCode = v >= 1 ? r.int16() : 0;
      const replicaElectionResults = r.array((r): ElectLeadersReplicaElectionResult => {
        const topic = r.string();
        const partitionResult = r.array((r): ElectLeadersPartitionResult => {
          const p = { partitionId: r.int32(), errorCode: r.int16(), errorMessage: r.nullableString() };
          r.tags();
          return p;
        }, 7);
        r.tags();
        return { topic, partitionResult };
      }, 3);
      r.tags();
      return { throttleTimeMs, errorCode, replicaElectionResults };
    },
  };
}
