import type { ApiVersionCodec } from '../../api.js';
import { readInt32Array, writeInt32Array } from '../fields.js';
import { groupStopReplicaPartitions, stopReplicaPartitions } from './partitions.js';
import type { StopReplicaRequest, StopReplicaResponse } from './types.js';

/** StopReplica v0-2; v1 adds the broker epoch and groups partitions by topic, v2 is flexible. */
export function stopReplicaCodec(v: number): ApiVersionCodec<StopReplicaRequest, StopReplicaResponse> {
  return {
    apiKey: 5,
    version: v,
    flexible: v >= 2,
    encodeRequest(w, req) {
      w.int32(req.controllerId).int32(req.controllerEpoch);
      if (v >= 1) w.int64(req.brokerEpoch ?? -1);
      w.bool(req.deletePartitions);
      if (v === 0) w.array(stopReplicaPartitions(req), (w, p) => w.string(p.topicName).int32(p.partitionIndex));
      else {
        const topics = req.topics?.length ? req.topics : groupStopReplicaPartitions(stopReplicaPartitions(req));
        w.array(topics, (w, t) => {
          w.string(t.name);
          writeInt32Array(w, t.partitionIndexes);
          w.tags();
        });
      }
      w.tags();
    },
    decodeRequest(r) {
      const controllerId = r.int32();
      const controllerEpoch = r.int32();
      const brokerEpoch = v >= 1 ? r.int64() : -1;
      const deletePartitions = r.bool();
      if (v === 0) {
        const ungroupedPartitions = r.array((r) => ({ topicName: r.string(), partitionIndex: r.int32() }), 6);
        return { controllerId, controllerEpoch, brokerEpoch, deletePartitions, ungroupedPartitions, topics: [] };
      }
      const topics = r.array((r) => {
        const t = { name: r.string(), partitionIndexes: readInt32Array(r) };
        r.tags();
        return t;
      }, 2);
      r.tags();
      return { controllerId, controllerEpoch, brokerEpoch, deletePartitions, ungroupedPartitions: [], topics };
    },
    encodeResponse(w, res) {
      w.int16(res.errorCode).array(res.partitionErrors, (w, p) => w.string(p.topicName).int32(p.partitionIndex).int16(p.errorCode).tags());
      w.tags();
    },
    decodeResponse(r) {
      const errorCode = r.int16();
      const partitionErrors = r.array((r) => {
        const p = { topicName: r.string(), partitionIndex: r.int32(), errorCode: r.int16() };
        r.tags();
        return p;
      }, 7);
      r.tags();
      return { errorCode, partitionErrors };
    },
  };
}
