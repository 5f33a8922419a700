import { ErrorCode } from '@gregor/common';
import type { DeleteTopicsRequest, DeleteTopicsResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** DeleteTopics: marks topics in /admin/delete_topics; the controller removes every replica. */
export function deleteTopicsHandler(s: BrokerServices): ApiHandler<DeleteTopicsRequest, DeleteTopicsResponse> {
  return async (req) => {
    if (!s.controller.isActive) {
      return { throttleTimeMs: 0, responses: req.topicNames.map((name) => ({ name, errorCode: ErrorCode.NOT_CONTROLLER })) };
    }
    const results = await s.adminManager.deleteTopics(req.topicNames, req.timeoutMs);
    return { throttleTimeMs: 0, responses: results.map((r) => ({ name: r.name, errorCode: r.errorCode })) };
  };
}
