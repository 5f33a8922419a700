import { ErrorCode } from '@gregor/common';
import type { InitProducerIdRequest, InitProducerIdResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ApiHandler } from '../kafka-apis.js';

/**
 * InitProducerId (KIP-98) for idempotent producers: with a null transactional id any broker answers with a fresh
 * producer id and epoch 0 (TransactionCoordinator.handleInitProducerId). An empty transactional id is
 * INVALID_REQUEST. gregor has no transaction coordinator, so a transactional id gets NOT_COORDINATOR, as from a
 * Kafka broker that does not own the id's `__transaction_state` partition (FindCoordinator for transactions
 * answers COORDINATOR_NOT_AVAILABLE, so a transactional client times out initialising). If no id can be handed
 * out (ZooKeeper unreachable) the answer is the retriable COORDINATOR_NOT_AVAILABLE, where Kafka's would be
 * UNKNOWN_SERVER_ERROR, fatal to a producer.
 */
export function initProducerIdHandler(s: BrokerServices): ApiHandler<InitProducerIdRequest, InitProducerIdResponse> {
  return async (req) => {
    const error = (errorCode: number): InitProducerIdResponse => ({ throttleTimeMs: 0, errorCode, producerId: -1, producerEpoch: -1 });
    if (req.transactionalId === '') return error(ErrorCode.INVALID_REQUEST);
    if (req.transactionalId !== null) return error(ErrorCode.NOT_COORDINATOR);
    try {
      const producerId = await s.producerIdManager.generateProducerId();
      return { throttleTimeMs: 0, errorCode: ErrorCode.NONE, producerId, producerEpoch: 0 };
    } catch (err) {
      s.log.warn({ err: (err as Error).message }, 'no producer id to hand out');
      return error(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    }
  };
}
