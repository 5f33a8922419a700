import { ErrorCode, GregorError, INTERNAL_TOPICS, topicNameProblem } from '@gregor/common';
import { BATCH_HEADER_SIZE, batchSizeAt, type ProduceRequest, type ProduceResponse } from '@gregor/protocol';
import type { BrokerServices } from '../broker-services.js';
import type { ProduceEntry } from '../cluster/replica-manager.js';
import type { ApiHandler } from '../kafka-apis.js';

/**
 * Produce: append each partition's batches to the leader log. acks=0 gets no response; when such a
 * write fails the connection is closed so the client notices (Kafka's behaviour).
 */
export function produceHandler(s: BrokerServices): ApiHandler<ProduceRequest, ProduceResponse> {
  return async (req, ctx) => {
    // Produce v0-2 carry message format v0/v1, up-converted to RecordBatch v2 on append.
    const messageSet = ctx.apiVersion < 3;
    const acks = req.acks;
    const entries: ProduceEntry[] = [];
    const immediate = new Map<string, { code: number; message: string | null }>();
    for (const t of req.topicData) {
      for (const p of t.partitionData) {
        const key = `${t.name}\u0000${p.index}`;
        const refused = produceRefusal(t.name, acks, req.transactionalId);
        if (refused !== null) immediate.set(key, { code: refused, message: null });
        else if (!messageSet && holdsSeveralBatches(p.records)) {
          // Kafka's ProduceRequest.validateRecords (answered per partition since Kafka 2.8; 2.4 dropped the request).
          immediate.set(key, { code: ErrorCode.INVALID_RECORD, message: `Produce requests with version ${ctx.apiVersion} are only allowed to contain exactly one record batch` });
        } else entries.push({ topic: t.name, partition: p.index, records: p.records, messageSet });
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
          const refusal = immediate.get(key);
          const code = refusal?.code;
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
            errorMessage: refusal?.message ?? st?.errorMessage ?? null,
          };
        }),
      })),
    };
  };
}

/** Whether a v3+ record set holds more than its first batch (lengths only; the log validates the batch itself). */
function holdsSeveralBatches(records: Buffer | null): boolean {
  if (!records || records.length === 0) return false;
  const size = batchSizeAt(records, 0);
  return size !== null && size >= BATCH_HEADER_SIZE && size < records.length;
}

/** Why a produce to this topic is refused before it reaches the log (an error code), or null (the HTTP admin's produce asks it too). */
export function produceRefusal(topic: string, acks: number, transactionalId: string | null): number | null {
  if (acks !== 0 && acks !== 1 && acks !== -1) return ErrorCode.INVALID_REQUIRED_ACKS;
  if (topicNameProblem(topic)) return ErrorCode.INVALID_TOPIC_EXCEPTION;
  // Internal topics (__consumer_offsets) are written by the broker itself, never by clients.
  if (INTERNAL_TOPICS.has(topic)) return ErrorCode.INVALID_TOPIC_EXCEPTION;
  if (transactionalId !== null) return ErrorCode.UNSUPPORTED_FOR_MESSAGE_FORMAT;
  return null;
}
