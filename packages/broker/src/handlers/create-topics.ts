import { ErrorCode } from '@gregor/common';
import type { CreatableTopicResult, CreateTopicsRequest, CreateTopicsResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/**
 * CreateTopics: only the controller takes it (clients retry there on NOT_CONTROLLER). From v5 a created
 * (or validated) topic's answer carries its partition count, replication factor and effective configs
 * (KIP-525); a failed one has -1, -1 and no configs, as Kafka resets them.
 */
export function createTopicsHandler(s: BrokerServices): ApiHandler<CreateTopicsRequest, CreateTopicsResponse> {
  return async (req, ctx) => {
    if (!s.controller.isActive) {
      return {
        throttleTimeMs: 0,
        topics: req.topics.map((t) => ({ name: t.name, errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: 'This is not the correct controller for this cluster.' })),
      };
    }
    const overridesByTopic = new Map(req.topics.map((t) => [t.name, Object.fromEntries(t.configs.filter((c) => c.value !== null).map((c) => [c.name, c.value as string]))]));
    const results = await s.adminManager.createTopics(
      req.topics.map((t) => ({
        name: t.name,
        numPartitions: t.numPartitions,
        replicationFactor: t.replicationFactor,
        assignments: t.assignments.length > 0 ? new Map(t.assignments.map((a) => [a.partitionIndex, a.brokerIds])) : null,
        configs: overridesByTopic.get(t.name)!,
      })),
      req.timeoutMs,
      req.validateOnly ?? false,
    );
    const withLayout = ctx.apiVersion >= 5;
    return {
      throttleTimeMs: 0,
      topics: results.map((r): CreatableTopicResult => {
        const ok = r.errorCode === ErrorCode.NONE && withLayout;
        return {
          name: r.name,
          errorCode: r.errorCode,
          errorMessage: r.errorMessage,
          topicConfigErrorCode: 0,
          numPartitions: ok ? (r.numPartitions ?? -1) : -1,
          replicationFactor: ok ? (r.replicationFactor ?? -1) : -1,
          configs: ok ? s.configAdmin.createdTopicConfigs(overridesByTopic.get(r.name) ?? {}) : [],
        };
      }),
    };
  };
}
