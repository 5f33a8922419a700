import { ErrorCode } from '@gregor/common';
import type { ControlledShutdownRequest, ControlledShutdownResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/** ControlledShutdown (controller side): move leadership off the stopping broker, answer with what it still leads. */
export function controlledShutdownHandler(s: BrokerServices): ApiHandler<ControlledShutdownRequest, ControlledShutdownResponse> {
  return async (req) => {
    if (!s.controller.isActive) return { errorCode: ErrorCode.NOT_CONTROLLER, remainingPartitions: [] };
    const r = await s.controller.controlledShutdown(req.brokerId, BigInt(req.brokerEpoch ?? -1));
    return {
      errorCode: r.errorCode,
      remainingPartitions: r.remaining.map((tp) => ({ topicName: tp.topic, partitionIndex: tp.partition })),
    };
  };
}
