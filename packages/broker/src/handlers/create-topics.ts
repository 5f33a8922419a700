import { ErrorCode } from '@gregor/common';
import type { CreateTopicsRequest, CreateTopicsResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** CreateTopics: only the controller takes it (clients retry there on NOT_CONTROLLER). */
export function createTopicsHandler(s: BrokerServices): ApiHandler<CreateTopicsRequest, CreateTopicsResponse> {
  return async (req) => {
    if (!s.controller.isActive) {
      return {
        throttleTimeMs: 0,
        topics: req.topics.map((t) => ({ name: t.name, errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: 'This is not the correct controller for this cluster.' })),
      };
    }
    const results = await s.adminManager.createTopics(
      req.topics.map((t) => ({
        name: t.name,
        numPartitions: t.numPartitions,
        replicationFactor: t.replicationFactor,
        assignments: t.assignments.length > 0 ? new Map(t.assignments.map((a) => [a.partitionIndex, a.brokerIds])) : null,
        configs: Object.fromEntries(t.configs.filter((c) => c.value !== null).map((c) => [c.name, c.value as string])),
      })),
      req.timeoutMs,
      req.validateOnly ?? false,
    );
    return { throttleTimeMs: 0, topics: results };
  };
}
