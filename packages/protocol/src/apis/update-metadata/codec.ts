import type { ApiVersionCodec } from '../../api.js';
import type { Reader } from '../../primitives/reader.js';
import type { Writer } from '../../primitives/writer.js';
import { readInt32Array, writeInt32Array } from '../fields.js';
import { flattenPartitionStates, groupPartitionStates } from '../topic-grouping.js';
import type { UpdateMetadataBroker, UpdateMetadataEndpoint, UpdateMetadataPartitionState, UpdateMetadataRequest, UpdateMetadataResponse, UpdateMetadataTopicState } from './types.js';

const PLAINTEXT = 0;

/** The partitions of a request with their topic names, whichever shape it was built or decoded in. */
export function updateMetadataPartitionStates(req: UpdateMetadataRequest): (UpdateMetadataPartitionState & { topicName: string })[] {
  return flattenPartitionStates(req.ungroupedPartitionStates, req.topicStates);
}

function endpointsOf(b: UpdateMetadataBroker): UpdateMetadataEndpoint[] {
  if (b.endpoints?.length) return b.endpoints;
  return b.v0Host ? [{ port: b.v0Port ?? 0, host: b.v0Host, listener: 'PLAINTEXT', securityProtocol: PLAINTEXT }] : [];
}

/** UpdateMetadata v0-6; v6 is flexible (compact strings and arrays, a tag section ending every struct). */
export function updateMetadataCodec(v: number): ApiVersionCodec<UpdateMetadataRequest, UpdateMetadataResponse> {
  const writeState = (w: Writer, p: UpdateMetadataPartitionState): void => {
    if (v <= 4) w.string(p.topicName ?? '');
    w.int32(p.partitionIndex).int32(p.controllerEpoch).int32(p.leader).int32(p.leaderEpoch);
    writeInt32Array(w, p.isr);
    w.int32(p.zkVersion);
    writeInt32Array(w, p.replicas);
    if (v >= 4) writeInt32Array(w, p.offlineReplicas ?? []);
    w.tags();
  };
  const readState = (r: Reader, topicName: string): UpdateMetadataPartitionState => {
    const p = {
      topicName: v <= 4 ? r.string() : topicName,
      partitionIndex: r.int32(),
      controllerEpoch: r.int32(),
      leader: r.int32(),
      leaderEpoch: r.int32(),
      isr: readInt32Array(r),
      zkVersion: r.int32(),
      replicas: readInt32Array(r),
      offlineReplicas: v >= 4 ? readInt32Array(r) : [],
    };
    r.tags();
    return p;
  };
  const writeBroker = (w: Writer, b: UpdateMetadataBroker): void => {
    w.int32(b.id);
    if (v === 0) {
      const first = b.endpoints?.[0];
      // Decoded v1+ brokers carry the defaults '' and 0 here: fall back to the first endpoint.
      w.string(b.v0Host || first?.host || '').int32(b.v0Port || first?.port || 0);
      return;
    }
    w.array(endpointsOf(b), (w, e) => {
      w.int32(e.port).string(e.host);
      if (v >= 3) w.string(e.listener ?? '');
      w.int16(e.securityProtocol).tags();
    });
    if (v >= 2) w.nullableString(b.rack ?? null);
    w.tags();
  };
  const readBroker = (r: Reader): UpdateMetadataBroker => {
    const id = r.int32();
    if (v === 0) return { id, v0Host: r.string(), v0Port: r.int32(), endpoints: [], rack: null };
    const endpoints = r.array((r): UpdateMetadataEndpoint => {
      const e = { port: r.int32(), host: r.string(), listener: v >= 3 ? r.string() : '', securityProtocol: r.int16() };
      r.tags();
      return e;
    }, 7);
    const rack = v >= 2 ? r.nullableString() : null;
    r.tags();
    return { id, v0Host: '', v0Port: 0, endpoints, rack };
  };
  return {
    apiKey: 6,
    version: v,
    flexible: v >= 6,
    encodeRequest(w, req) {
      w.int32(req.controllerId).int32(req.controllerEpoch);
      if (v >= 5) w.int64(req.brokerEpoch ?? -1);
      if (v <= 4) w.array(updateMetadataPartitionStates(req), writeState);
      else {
        const topics = req.topicStates?.length ? req.topicStates : groupPartitionStates(updateMetadataPartitionStates(req));
        w.array(topics, (w, t) => w.string(t.topicName).array(t.partitionStates, writeState).tags());
      }
      w.array(req.liveBrokers, writeBroker);
      w.tags();
    },
    decodeRequest(r) {
      const controllerId = r.int32();
      const controllerEpoch = r.int32();
      const brokerEpoch = v >= 5 ? r.int64() : -1;
      let ungroupedPartitionStates: UpdateMetadataPartitionState[] = [];
      let topicStates: UpdateMetadataTopicState[] = [];
      if (v <= 4) ungroupedPartitionStates = r.array((r) => readState(r, ''), 30);
      else {
        topicStates = r.array((r) => {
          const topicName = r.string();
          const partitionStates = r.array((r) => readState(r, topicName), 20);
          r.tags();
          return { topicName, partitionStates };
        }, 3);
      }
      const liveBrokers = r.array(readBroker, 4);
      r.tags();
      return { controllerId, controllerEpoch, brokerEpoch, ungroupedPartitionStates, topicStates, liveBrokers };
    },
    encodeResponse(w, res) {
      w.int16(res.errorCode).tags();
    },
    decodeResponse(r) {
      const errorCode = r.int16();
      r.tags();
      return { errorCode };
    },
  };
}
