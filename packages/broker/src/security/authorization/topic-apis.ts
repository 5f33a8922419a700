import { ErrorCode, INTERNAL_TOPICS, type Logger } from '@gregor/common';
import { ApiKey, type FetchResponse, type OffsetsForLeaderEpochResponse } from '@gregor/protocol';
import type { BrokerServices } from '../../broker-services.js';
import type { KafkaApis, RequestContext } from '../../kafka-apis.js';
import type { AuthHelper } from '../auth-helper.js';
import { logRefused } from './inter-broker.js';

const TOPIC_DENIED: number = ErrorCode.TOPIC_AUTHORIZATION_FAILED;
/** Kafka's MemoryRecords.EMPTY: an error partition carries an empty record set, never a null one (librdkafka rejects size -1). */
const NO_RECORDS = Buffer.alloc(0);

function deniedFetch(topics: { topic: string; partitions: { partition: number }[] }[]): FetchResponse['responses'] {
  return topics.map((t) => ({
    topic: t.topic,
    partitionResponses: t.partitions.map((p) => ({
      partition: p.partition,
      errorCode: TOPIC_DENIED,
      highWatermark: -1,
      lastStableOffset: -1,
      logStartOffset: -1,
      abortedTransactions: null,
      preferredReadReplica: -1,
      recordSet: NO_RECORDS,
    })),
  }));
}

function deniedEpochs(topics: { topic: string; partitions: { partition: number }[] }[]): OffsetsForLeaderEpochResponse['topics'] {
  return topics.map((t) => ({ topic: t.topic, partitions: t.partitions.map((p) => ({ errorCode: TOPIC_DENIED, partition: p.partition, leaderEpoch: -1, endOffset: -1 })) }));
}

/**
 * Fetch and OffsetsForLeaderEpoch, always: a request naming a replica (replica_id >= 0) needs Cluster
 * ClusterAction, or without an authorizer the inter-broker listener; refused, every partition gets
 * TOPIC_AUTHORIZATION_FAILED (Kafka's answer to an unauthorized follower) and nothing is read.
 * With an authorizer, consumers need Topic Read (Fetch) or Describe (OffsetsForLeaderEpoch, unless ClusterAction).
 */
export function installReplicaChecks(apis: KafkaApis, auth: AuthHelper, log: Logger): void {
  apis.wrap(ApiKey.Fetch, (inner) => async (req, ctx) => {
    if (req.replicaId >= 0) {
      if (auth.clusterAction(ctx)) return inner(req, ctx);
      logRefused(log, 'Fetch (replica)', ctx);
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses: deniedFetch(req.topics) };
    }
    if (!auth.authorizer) return inner(req, ctx);
    const allowed = auth.filterAuthorized(ctx, 'Read', 'Topic', req.topics.map((t) => t.topic));
    const denied = req.topics.filter((t) => !allowed.has(t.topic));
    if (denied.length === 0) return inner(req, ctx);
    const topics = req.topics.filter((t) => allowed.has(t.topic));
    const res = topics.length > 0 ? await inner({ ...req, topics }, ctx) : { throttleTimeMs: 0, errorCode: ErrorCode.NONE, sessionId: 0, responses: [] };
    return res && { ...res, responses: [...res.responses, ...deniedFetch(denied)] };
  });
  apis.wrap(ApiKey.OffsetsForLeaderEpoch, (inner) => async (req, ctx) => {
    if ((req.replicaId ?? -1) >= 0) {
      if (auth.clusterAction(ctx)) return inner(req, ctx);
      logRefused(log, 'OffsetsForLeaderEpoch (replica)', ctx);
      return { throttleTimeMs: 0, topics: deniedEpochs(req.topics) };
    }
    if (!auth.authorizer || auth.authorizeCluster(ctx, 'ClusterAction', false)) return inner(req, ctx);
    const allowed = auth.filterAuthorized(ctx, 'Describe', 'Topic', req.topics.map((t) => t.topic));
    const denied = req.topics.filter((t) => !allowed.has(t.topic));
    const topics = req.topics.filter((t) => allowed.has(t.topic));
    const res = topics.length > 0 ? await inner({ ...req, topics }, ctx) : { throttleTimeMs: 0, topics: [] };
    return res && { ...res, topics: [...res.topics, ...deniedEpochs(denied)] };
  });
}

/** With an authorizer: the topic APIs check Topic operations per topic (Kafka 2.4's KafkaApis). */
export function installTopicAuthorization(apis: KafkaApis, auth: AuthHelper, s: BrokerServices): void {
  apis.wrap(ApiKey.Produce, (inner) => async (req, ctx) => {
    if (req.transactionalId !== null && !auth.authorize(ctx, 'Write', 'TransactionalId', req.transactionalId)) {
      return denyAll(req, ctx, ErrorCode.TRANSACTIONAL_ID_AUTHORIZATION_FAILED);
    }
    const allowed = auth.filterAuthorized(ctx, 'Write', 'Topic', req.topicData.map((t) => t.name));
    const denied = req.topicData.filter((t) => !allowed.has(t.name));
    if (denied.length === 0) return inner(req, ctx);
    if (req.acks === 0) throw new Error('closing connection after an unauthorized acks=0 produce, as Kafka does');
    const topicData = req.topicData.filter((t) => allowed.has(t.name));
    const res = topicData.length > 0 ? await inner({ ...req, topicData }, ctx) : { responses: [], throttleTimeMs: 0 };
    return res && { ...res, responses: [...res.responses, ...partitionErrors(denied, TOPIC_DENIED)] };
  });

  function denyAll(req: { acks: number; topicData: { name: string; partitionData: { index: number }[] }[] }, _ctx: RequestContext, code: number) {
    if (req.acks === 0) throw new Error('closing connection after an unauthorized acks=0 produce, as Kafka does');
    return { responses: partitionErrors(req.topicData, code), throttleTimeMs: 0 };
  }

  apis.wrap(ApiKey.ListOffsets, (inner) => async (req, ctx) => {
    const allowed = auth.filterAuthorized(ctx, 'Describe', 'Topic', req.topics.map((t) => t.name));
    const denied = req.topics.filter((t) => !allowed.has(t.name));
    if (denied.length === 0) return inner(req, ctx);
    const topics = req.topics.filter((t) => allowed.has(t.name));
    const res = topics.length > 0 ? await inner({ ...req, topics }, ctx) : { throttleTimeMs: 0, topics: [] };
    const deniedTopics = denied.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: TOPIC_DENIED, timestamp: -1, offset: -1, leaderEpoch: -1 })) }));
    return res && { ...res, topics: [...res.topics, ...deniedTopics] };
  });

  apis.wrap(ApiKey.Metadata, (inner) => async (req, ctx) => {
    const all = req.topics === null || (ctx.apiVersion === 0 && req.topics.length === 0);
    if (all) {
      // All topics: those the principal may not Describe are left out, not reported.
      const res = await inner(req, ctx);
      return res && { ...res, topics: res.topics.filter((t) => auth.authorize(ctx, 'Describe', 'Topic', t.name, false)) };
    }
    const names = req.topics!.map((t) => t.name);
    const describable = auth.filterAuthorized(ctx, 'Describe', 'Topic', names);
    const autoCreate = s.config.autoCreateTopicsEnable && req.allowAutoTopicCreation !== false;
    const notCreatable = new Set<string>();
    if (autoCreate && !auth.authorizeCluster(ctx, 'Create', false)) {
      for (const n of describable) if (!s.metadataCache.contains(n) && !auth.authorize(ctx, 'Create', 'Topic', n)) notCreatable.add(n);
    }
    const asked = names.filter((n) => describable.has(n) && !notCreatable.has(n));
    const errors = names
      .filter((n) => !describable.has(n) || notCreatable.has(n))
      .map((name) => ({ errorCode: TOPIC_DENIED, name, isInternal: INTERNAL_TOPICS.has(name) && describable.has(name), partitions: [] }));
    if (errors.length === 0) return inner(req, ctx);
    const res = await inner({ ...req, topics: asked.map((name) => ({ name })) }, ctx);
    // v1+ reads an empty list as "no topics"; only v0 would read it as all of them, and v0 is not asked for none here.
    return res && { ...res, topics: [...(asked.length > 0 ? res.topics : []), ...errors] };
  });

  apis.wrap(ApiKey.DeleteRecords, (inner) => async (req, ctx) => {
    const allowed = auth.filterAuthorized(ctx, 'Delete', 'Topic', req.topics.map((t) => t.name));
    const denied = req.topics.filter((t) => !allowed.has(t.name));
    if (denied.length === 0) return inner(req, ctx);
    const topics = req.topics.filter((t) => allowed.has(t.name));
    const res = topics.length > 0 ? await inner({ ...req, topics }, ctx) : { throttleTimeMs: 0, topics: [] };
    const deniedTopics = denied.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, lowWatermark: -1, errorCode: TOPIC_DENIED })) }));
    return res && { ...res, topics: [...res.topics, ...deniedTopics] };
  });

  apis.wrap(ApiKey.CreateTopics, (inner) => async (req, ctx) => {
    if (auth.authorizeCluster(ctx, 'Create', false)) return inner(req, ctx);
    const allowed = auth.filterAuthorized(ctx, 'Create', 'Topic', req.topics.map((t) => t.name));
    const denied = req.topics.filter((t) => !allowed.has(t.name));
    if (denied.length === 0) return inner(req, ctx);
    const topics = req.topics.filter((t) => allowed.has(t.name));
    const res = topics.length > 0 ? await inner({ ...req, topics }, ctx) : { throttleTimeMs: 0, topics: [] };
    return res && { ...res, topics: [...res.topics, ...denied.map((t) => ({ name: t.name, errorCode: TOPIC_DENIED, errorMessage: 'Authorization failed.' }))] };
  });

  apis.wrap(ApiKey.DeleteTopics, (inner) => async (req, ctx) => {
    const allowed = auth.filterAuthorized(ctx, 'Delete', 'Topic', req.topicNames);
    const denied = req.topicNames.filter((n) => !allowed.has(n));
    if (denied.length === 0) return inner(req, ctx);
    const topicNames = req.topicNames.filter((n) => allowed.has(n));
    const res = topicNames.length > 0 ? await inner({ ...req, topicNames }, ctx) : { throttleTimeMs: 0, responses: [] };
    return res && { ...res, responses: [...res.responses, ...denied.map((name) => ({ name, errorCode: TOPIC_DENIED }))] };
  });

  apis.wrap(ApiKey.CreatePartitions, (inner) => async (req, ctx) => {
    const allowed = auth.filterAuthorized(ctx, 'Alter', 'Topic', req.topics.map((t) => t.name));
    const denied = req.topics.filter((t) => !allowed.has(t.name));
    if (denied.length === 0) return inner(req, ctx);
    const topics = req.topics.filter((t) => allowed.has(t.name));
    const res = topics.length > 0 ? await inner({ ...req, topics }, ctx) : { throttleTimeMs: 0, results: [] };
    return res && { ...res, results: [...res.results, ...denied.map((t) => ({ name: t.name, errorCode: TOPIC_DENIED, errorMessage: 'The topic authorization is failed.' }))] };
  });
}

function partitionErrors(topics: { name: string; partitionData: { index: number }[] }[], errorCode: number) {
  return topics.map((t) => ({ name: t.name, partitionResponses: t.partitionData.map((p) => ({ index: p.index, errorCode, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1 })) }));
}
