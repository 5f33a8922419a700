import type { ApiVersionCodec } from '../../api.js';
import { readInt32Array, writeInt32Array } from '../fields.js';
import type { Writer } from '../../primitives/writer.js';
import type { MetadataRequest, MetadataRequestTopic, MetadataResponse, MetadataResponseBroker, MetadataResponsePartition, MetadataResponseTopic } from './types.js';

const NO_AUTHORIZED_OPERATIONS = -2147483648;

/**
 * Metadata v0-9; v9 is flexible (compact encodings, a tagged-field section ending every struct, which
 * the Writer and Reader handle once the frame codec marks the body flexible). Each field is read and
 * written in the versions Kafka's JSON gives it.
 */
export function metadataCodec(v: number): ApiVersionCodec<MetadataRequest, MetadataResponse> {
  return {
    apiKey: 3,
    version: v,
    flexible: v >= 9,
    encodeRequest(w, req) {
      const writeTopic = (w: Writer, t: MetadataRequestTopic) => w.string(t.name).tags();
      if (v === 0) w.array(req.topics ?? [], writeTopic);
      else w.nullableArray(req.topics, writeTopic);
      if (v >= 4) w.bool(req.allowAutoTopicCreation ?? true);
      if (v >= 8) w.bool(req.includeClusterAuthorizedOperations ?? false).bool(req.includeTopicAuthorizedOperations ?? false);
      w.tags();
    },
    decodeRequest(r) {
      let topics = r.nullableArray((r) => {
        const name = r.string();
        r.tags();
        return { name };
      }, 2);
      if (v === 0 && topics !== null && topics.length === 0) topics = null;
      const allowAutoTopicCreation = v >= 4 ? r.bool() : true;
      const includeClusterAuthorizedOperations = v >= 8 ? r.bool() : false;
      const includeTopicAuthorizedOperations = v >= 8 ? r.bool() : false;
      r.tags();
      return { topics, allowAutoTopicCreation, includeClusterAuthorizedOperations, includeTopicAuthorizedOperations };
    },
    encodeResponse(w, res) {
      if (v >= 3) w.int32(res.throttleTimeMs ?? 0);
      w.array(res.brokers, (w, b) => {
        w.int32(b.nodeId).string(b.host).int32(b.port);
        if (v >= 1) w.nullableString(b.rack ?? null);
        w.tags();
      });
      if (v >= 2) w.nullableString(res.clusterId ?? null);
      if (v >= 1) w.int32(res.controllerId ?? -1);
      w.array(res.topics, (w, t) => {
        w.int16(t.errorCode).string(t.name);
        if (v >= 1) w.bool(t.isInternal ?? false);
        w.array(t.partitions, (w, p) => {
          w.int16(p.errorCode).int32(p.partitionIndex).int32(p.leaderId);
          if (v >= 7) w.int32(p.leaderEpoch ?? -1);
          writeInt32Array(w, p.replicaNodes);
          writeInt32Array(w, p.isrNodes);
          if (v >= 5) writeInt32Array(w, p.offlineReplicas ?? []);
          w.tags();
        });
        if (v >= 8) w.int32(t.topicAuthorizedOperations ?? NO_AUTHORIZED_OPERATIONS);
        w.tags();
      });
      if (v >= 8) w.int32(res.clusterAuthorizedOperations ?? NO_AUTHORIZED_OPERATIONS);
      w.tags();
    },
    decodeResponse(r) {
      const throttleTimeMs = v >= 3 ? r.int32() : 0;
      const brokers = r.array((r): MetadataResponseBroker => {
        const b = { nodeId: r.int32(), host: r.string(), port: r.int32(), rack: v >= 1 ? r.nullableString() : null };
        r.tags();
        return b;
      }, 10);
      const clusterId = v >= 2 ? r.nullableString() : null;
      const controllerId = v >= 1 ? r.int32() : -1;
      const topics = r.array((r): MetadataResponseTopic => {
        const errorCode = r.int16();
        const name = r.string();
        const isInternal = v >= 1 ? r.bool() : false;
        const partitions = r.array((r): MetadataResponsePartition => {
          const p = {
            errorCode: r.int16(),
            partitionIndex: r.int32(),
            leaderId: r.int32(),
            leaderEpoch: v >= 7 ? r.int32() : -1,
            replicaNodes: readInt32Array(r),
            isrNodes: readInt32Array(r),
            offlineReplicas: v >= 5 ? readInt32Array(r) : [],
          };
          r.tags();
          return p;
        }, 18);
        const topicAuthorizedOperations = v >= 8 ? r.int32() : NO_AUTHORIZED_OPERATIONS;
        r.tags();
        return { errorCode, name, isInternal, partitions, topicAuthorizedOperations };
      }, 8);
      const clusterAuthorizedOperations = v >= 8 ? r.int32() : NO_AUTHORIZED_OPERATIONS;
      r.tags();
      return { throttleTimeMs, brokers, clusterId, controllerId, topics, clusterAuthorizedOperations };
    },
  };
}
