import type { ApiVersionCodec } from '../../api.js';
import type { Reader } from '../../primitives/reader.js';
import type { Writer } from '../../primitives/writer.js';
import { readInt32Array, writeInt32Array } from '../fields.js';
import { flattenPartitionStates, groupPartitionStates } from '../topic-grouping.js';
import type { LeaderAndIsrPartitionState, LeaderAndIsrRequest, LeaderAndIsrResponse, LeaderAndIsrTopicState } from './types.js';

/** The partitions of a request with their topic names, whichever shape it was built or decoded in. */
export function leaderAndIsrPartitionStates(req: LeaderAndIsrRequest): (LeaderAndIsrPartitionState & { topicName: string })[] {
  return flattenPartitionStates(req.ungroupedPartitionStates, req.topicStates);
}

/** LeaderAndIsr v0-4; v3 adds adding/removing replicas (KIP-455), v4 is flexible. */
export function leaderAndIsrCodec(v: number): ApiVersionCodec<LeaderAndIsrRequest, LeaderAndIsrResponse> {
  const writeState = (w: Writer, p: LeaderAndIsrPartitionState): void => {
    if (v <= 1) w.string(p.topicName ?? '');
    w.int32(p.partitionIndex).int32(p.controllerEpoch).int32(p.leader).int32(p.leaderEpoch);
    writeInt32Array(w, p.isr);
    w.int32(p.zkVersion);
    writeInt32Array(w, p.replicas);
    if (v >= 3) {
      writeInt32Array(w, p.addingReplicas ?? []);
      writeInt32Array(w, p.removingReplicas ?? []);
    }
    if (v >= 1) w.bool(p.isNew ?? false);
    w.tags();
  };
  const readState = (r: Reader, topicName: string): LeaderAndIsrPartitionState => {
    const p = {
      topicName: v <= 1 ? r.string() : topicName,
      partitionIndex: r.int32(),
      controllerEpoch: r.int32(),
      leader: r.int32(),
      leaderEpoch: r.int32(),
      isr: readInt32Array(r),
      zkVersion: r.int32(),
      replicas: readInt32Array(r),
      addingReplicas: v >= 3 ? readInt32Array(r) : [],
      removingReplicas: v >= 3 ? readInt32Array(r) : [],
      isNew: v >= 1 ? r.bool() : false,
    };
    r.tags();
    return p;
  };
  return {
    apiKey: 4,
    version: v,
    flexible: v >= 4,
    encodeRequest(w, req) {
      w.int32(req.controllerId).int32(req.controllerEpoch);
      if (v >= 2) w.int64(req.brokerEpoch ?? -1);
      const states = leaderAndIsrPartitionStates(req);
      if (v <= 1) w.array(states, writeState);
      else {
        const topics = req.topicStates?.length ? req.topicStates : groupPartitionStates(states);
        w.array(topics, (w, t) => w.string(t.topicName).array(t.partitionStates, writeState).tags());
      }
      w.array(req.liveLeaders, (w, l) => w.int32(l.brokerId).string(l.hostName).int32(l.port).tags());
      w.tags();
    },
    decodeRequest(r) {
      const controllerId = r.int32();
      const controllerEpoch = r.int32();
      const brokerEpoch = v >= 2 ? r.int64() : -1;
      let ungroupedPartitionStates: LeaderAndIsrPartitionState[] = [];
      let topicStates: LeaderAndIsrTopicState[] = [];
      if (v <= 1) ungroupedPartitionStates = r.array((r) => readState(r, ''), 30);
      else {
        topicStates = r.array((r) => {
          const topicName = r.string();
          const partitionStates = r.array((r) => readState(r, topicName), 20);
          r.tags();
          return { topicName, partitionStates };
        }, 3);
      }
      const liveLeaders = r.array((r) => {
        const l = { brokerId: r.int32(), hostName: r.string(), port: r.int32() };
        r.tags();
        return l;
      }, 10);
      r.tags();
      return { controllerId, controllerEpoch, brokerEpoch, ungroupedPartitionStates, topicStates, liveLeaders };
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
