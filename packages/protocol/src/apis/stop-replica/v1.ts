// StopReplica Request (Version: 1) => controller_id controller_epoch broker_epoch delete_partitions [topics]
//   topics => name [partition_indexes]
// StopReplica Response (Version: 1) => same as version 0
import type { ApiVersionCodec } from '../../api.js';
import { readInt32Array, writeInt32Array } from '../fields.js';
import { groupStopReplicaPartitions, stopReplicaPartitions } from './partitions.js';
import type { StopReplicaRequest, StopReplicaResponse } from './types.js';
import { v0 } from './v0.js';

export const v1: ApiVersionCodec<StopReplicaRequest, StopReplicaResponse> = {
  ...v0,
  version: 1,
  encodeRequest(w, req) {
    w.int32(req.controllerId).int32(req.controllerEpoch).int64(req.brokerEpoch ?? -1).bool(req.deletePartitions);
    const topics = req.topics?.length ? req.topics : groupStopReplicaPartitions(stopReplicaPartitions(req));
    w.array(topics, (w, t) => {
      w.string(t.name);
      writeInt32Array(w, t.partitionIndexes);
    });
  },
  decodeRequest(r) {
    const controllerId = r.int32();
    const controllerEpoch = r.int32();
    const brokerEpoch = r.int64();
    const deletePartitions = r.bool();
    const topics = r.array((r) => ({ name: r.string(), partitionIndexes: readInt32Array(r) }), 6);
    return { controllerId, controllerEpoch, brokerEpoch, deletePartitions, ungroupedPartitions: [], topics };
  },
};
