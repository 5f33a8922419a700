// StopReplica Request (Version: 0) => controller_id controller_epoch delete_partitions [ungrouped_partitions]
//   ungrouped_partitions => topic_name partition_index
// StopReplica Response (Version: 0) => error_code [partition_errors]
//   partition_errors => topic_name partition_index error_code
import type { ApiVersionCodec } from '../../api.js';
import type { Reader } from '../../primitives/reader.js';
import type { Writer } from '../../primitives/writer.js';
import { stopReplicaPartitions } from './partitions.js';
import type { StopReplicaRequest, StopReplicaResponse } from './types.js';

export function encodeResponseV0(w: Writer, res: StopReplicaResponse): void {
  w.int16(res.errorCode).array(res.partitionErrors, (w, p) => w.string(p.topicName).int32(p.partitionIndex).int16(p.errorCode));
}

export function decodeResponseV0(r: Reader): StopReplicaResponse {
  const errorCode = r.int16();
  return { errorCode, partitionErrors: r.array((r) => ({ topicName: r.string(), partitionIndex: r.int32(), errorCode: r.int16() }), 8) };
}

export const v0: ApiVersionCodec<StopReplicaRequest, StopReplicaResponse> = {
  apiKey: 5,
  version: 0,
  flexible: false,
  encodeRequest(w, req) {
    w.int32(req.controllerId).int32(req.controllerEpoch).bool(req.deletePartitions);
    w.array(stopReplicaPartitions(req), (w, p) => w.string(p.topicName).int32(p.partitionIndex));
  },
  decodeRequest(r) {
    const controllerId = r.int32();
    const controllerEpoch = r.int32();
    const deletePartitions = r.bool();
    const ungroupedPartitions = r.array((r) => ({ topicName: r.string(), partitionIndex: r.int32() }), 6);
    return { controllerId, controllerEpoch, brokerEpoch: -1, deletePartitions, ungroupedPartitions, topics: [] };
  },
  encodeResponse: encodeResponseV0,
  decodeResponse: decodeResponseV0,
};
