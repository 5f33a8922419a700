import { ErrorCode } from '@gregor/common';
import type { CreatePartitionsRequest, CreatePartitionsResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** CreatePartitions: extends a topic's assignment in ZooKeeper; the controller brings the new partitions online. */
export function createPartitionsHandler(s: BrokerServices): ApiHandler<CreatePartitionsRequest, CreatePartitionsResponse> {
  return async (req) => {
    if (!s.controller.isActive) {
      return {
        throttleTimeMs: 0,
        results: req.topics.map((t) => ({ name: t.name, errorCode: ErrorCode.NOT_CONTROLLER, errorMessage: 'This is not the correct controller for this cluster.' })),
      };
    }
    const results = await s.adminManager.createPartitions(
      req.topics.map((t) => ({ name: t.name, count: t.count, assignments: t.assignments ? t.assignments.map((a) => a.brokerIds) : null })),
      req.timeoutMs,
      req.validateOnly,
    );
    return { throttleTimeMs: 0, results };
  };
}
