import { ErrorCode, GregorError, INTERNAL_TOPICS, topicNameProblem } from '@gregor/common';
import type { ProduceRequest, ProduceResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ProduceEntry } from '../cluster/replica-manager.js';
import type { ApiHandler } from '../kafka-apis.js';

/**
 * Produce: append each partition's batches to the leader log. acks=0 gets no response; when such a
 * write fails the connection is closed so the client notices (Kafka's behaviour).
 */
export function produceHandler(s: BrokerServices): ApiHandler<ProduceRequest, ProduceResponse> {
  return async (req) => {
    const acks = req.acks;
    const entries: ProduceEntry[] = [];
    const immediate = new Map<string, number>();
    for (const t of req.topicData) {
      for (const p of t.partitionData) {
        const key = `${t.name}\u0000${p.index}`;
        if (acks !== 0 && acks !== 1 && acks !== -1) immediate.set(key, ErrorCode.INVALID_REQUIRED_ACKS);
        else if (topicNameProblem(t.name)) immediate.set(key, ErrorCode.INVALID_TOPIC_EXCEPTION);
        // Internal topics (__consumer_offsets) are written by the broker itself, never by clients.
        else if (INTERNAL_TOPICS.has(t.name)) immediate.set(key, ErrorCode.INVALID_TOPIC_EXCEPTION);
        else if (req.transactionalId !== null) immediate.set(key, ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT);
        else entries.push({ topic: t.name, partition: p.index, records: p.records });
      }
    }
    const statuses = await s.replicaManager.appendRecords(req.timeoutMs, acks, entries);
    const byKey = new Map(statuses.map((st) => [`${st.topic}\u0000${st.partition}`, st]));
    if (acks === 0) {
      const failed = statuses.find((st) => st.errorCode !== ErrorCode.NONE) ?? (immediate.size > 0 ? true : undefined);
      if (failed) throw new GregorError(ErrorCode.INVALID_REQUEST, 'closing connection after a failed acks=0 produce, as Kafka does');
      return null;
    }
    return {
      throttleTimeMs: 0,
      responses: req.topicData.map((t) => ({
        name: t.name,
        partitionResponses: t.partitionData.map((p) => {
          const key = `${t.name}\u0000${p.index}`;
          const code = immediate.get(key);
          const st = byKey.get(key);
          return {
            index: p.index,
            errorCode: code ?? st?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR,
            baseOffset: code === undefined && st && st.errorCode === ErrorCode.NONE ? st.baseOffset : -1,
            // LogAppendTime topics: the leader's clock; a retried idempotent batch: its original batch's timestamp.
            logAppendTimeMs: code === undefined && st && st.errorCode === ErrorCode.NONE ? st.logAppendTimeMs : -1,
            logStartOffset: st?.logStartOffset ?? -1,
            // v8 (KIP-467): the first refused record, as Kafka 2.4 names it; older versions get only the code.
            recordErrors: (st?.recordErrors ?? []).map((e) => ({ batchIndex: e.batchIndex, batchIndexErrorMessage: e.message })),
            errorMessage: st?.errorMessage ?? null,
          };
        }),
      })),
    };
  };
}
