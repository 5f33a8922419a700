// (v0, whose request header has no client id, is not supported.)
// ControlledShutdown Request (Version: 1) => broker_id
// ControlledShutdown Response (Version: 1) => error_code [remaining_partitions]
//   remaining_partitions => topic_name partition_index
import type { ApiVersionCodec } from '../../api.js';
import type { Writer } from '../../primitives/writer.js';
import type { Reader } from '../../primitives/reader.js';
import type { ControlledShutdownRequest, ControlledShutdownResponse } from './types.js';

export function encodeResponseV1(w: Writer, res: ControlledShutdownResponse): void {
  w.int16(res.errorCode).array(res.remainingPartitions, (w, p) => w.string(p.topicName).int32(p.partitionIndex));
}

export function decodeResponseV1(r: Reader): ControlledShutdownResponse {
  const errorCode = r.int16();
  return { errorCode, remainingPartitions: r.array((r) => ({ topicName: r.string(), partitionIndex: r.int32() }), 6) };
}

export const v1: ApiVersionCodec<ControlledShutdownRequest, ControlledShutdownResponse> = {
  apiKey: 7,
  version: 1,
  flexible: false,
  encodeRequest(w, req) {
    w.int32(req.brokerId);
  },
  decodeRequest: (r) => ({ brokerId: r.int32(), brokerEpoch: -1 }),
  encodeResponse: encodeResponseV1,
  decodeResponse: decodeResponseV1,
};
