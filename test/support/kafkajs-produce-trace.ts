// Test support: what kafkajs put in each Produce request (the first sequence it gave each partition's batch, and the
// batch's values) and how each request was answered, recorded by wrapping kafkajs's Broker.produce; and the check of
// kafkajs's acknowledgements against the stored log that uses it.
//
// Why: kafkajs 2.2.4 rolls a partition's sequence back when a Produce request fails (sendMessages.js, the catch around
// broker.produce), even if the broker wrote the batch before the connection closed. Normally the retry sends the same
// batch with the same sequence and the broker answers it as a duplicate. But when the retry skips the partition
// (tulios/kafkajs#1303: its new leader already answered within the same send), or the send gives up, the rolled-back
// sequence goes to the NEXT batch, with other records. A broker recognises a retry only by producer id, epoch and
// sequence range (Kafka's ProducerStateEntry.findDuplicateBatch), so it answers that batch as a duplicate: NONE and the
// offset of the earlier batch, and kafkajs reports records as written that never were.
import { createRequire } from 'node:module';
import type { StoredBatch } from './idempotent-log.js';

export interface TracedBatch {
  partition: number;
  firstSequence: number;
  values: string[];
}

export interface TracedProduce {
  broker: number;
  batches: TracedBatch[];
  /** Per partition as the broker answered; `error` when kafkajs threw (a partition error, a closed connection...). */
  answer: { partition: number; errorCode: number; baseOffset: number }[] | { error: string } | 'pending';
}

interface KafkajsProduceArgs {
  topicData: { topic: string; partitions: { partition: number; firstSequence?: number; messages: { value: unknown }[] }[] }[];
}
interface KafkajsProduceResponse {
  topics: { topicName: string; partitions: { partition: number; errorCode: number; baseOffset: string }[] }[];
}
type ProduceFn = (this: { nodeId: number }, args: KafkajsProduceArgs) => Promise<KafkajsProduceResponse>;

/** Records the Produce requests kafkajs sends for `topic` until `restore()`. */
export function traceKafkajsProduce(topic: string): { requests: TracedProduce[]; restore(): void } {
  // The Broker class kafkajs's producer uses (one module instance: the same require cache).
  const Broker = createRequire(import.meta.url)('kafkajs/src/broker/index.js') as { prototype: { produce: ProduceFn } };
  const original = Broker.prototype.produce;
  const requests: TracedProduce[] = [];
  Broker.prototype.produce = async function (this: { nodeId: number }, args: KafkajsProduceArgs): Promise<KafkajsProduceResponse> {
    const batches = args.topicData
      .filter((t) => t.topic === topic)
      .flatMap((t) => t.partitions.map((p) => ({ partition: p.partition, firstSequence: p.firstSequence ?? -1, values: p.messages.map((m) => String(m.value)) })));
    const traced: TracedProduce = { broker: this.nodeId, batches, answer: 'pending' };
    if (batches.length > 0) requests.push(traced);
    try {
      const res = await original.call(this, args);
      traced.answer = res.topics
        .filter((t) => t.topicName === topic)
        .flatMap((t) => t.partitions.map((p) => ({ partition: p.partition, errorCode: p.errorCode, baseOffset: Number(p.baseOffset) })));
      return res;
    } catch (err) {
      traced.answer = { error: `${(err as Error).name}: ${(err as Error).message}` };
      throw err;
    }
  };
  return { requests, restore: () => void (Broker.prototype.produce = original) };
}

/** A partition of a kafkajs send that came back in the send's result without error: its values and the offset given. */
export interface KafkajsAnswer {
  partition: number;
  baseOffset: number;
  values: string[];
}

export interface AnswerCheck {
  /** Values stored at the offset their answer gave. */
  confirmed: string[];
  /** Values kafkajs sent with the sequence range of an earlier batch it never got acknowledged, answered as its duplicate. */
  reusedSequence: { values: string[]; description: string }[];
  /** Anything else: an acknowledged value not at its offset. Must be empty. */
  lost: string[];
}

function describeAnswer(answer: TracedProduce['answer']): string {
  if (answer === 'pending') return 'no answer';
  return Array.isArray(answer) ? JSON.stringify(answer) : answer.error;
}

const sameValues = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((v, i) => v === b[i]);

function answeredOk(r: TracedProduce, partition: number, baseOffset?: number): boolean {
  return Array.isArray(r.answer) && r.answer.some((a) => a.partition === partition && a.errorCode === 0 && (baseOffset === undefined || a.baseOffset === baseOffset));
}

/**
 * Checks every kafkajs answer against the stored log (`batches[partition]`): the batch at the answered offset holds
 * the answer's values, or the trace proves a reused sequence: the answered request sent these values with first
 * sequence S, an earlier request sent the stored batch's values with the same S and was never answered for that
 * partition, and the stored batch is that earlier one (same sequence range). `acknowledged` are the values kafkajs
 * reported written; the earlier batch's values must not be among them.
 */
export function checkKafkajsAnswers(answers: readonly KafkajsAnswer[], batches: readonly StoredBatch[][], requests: readonly TracedProduce[], acknowledged: ReadonlySet<string>): AnswerCheck {
  const out: AnswerCheck = { confirmed: [], reusedSequence: [], lost: [] };
  for (const a of answers) {
    const stored = batches[a.partition]?.find((b) => b.baseOffset === a.baseOffset);
    if (stored && sameValues(stored.values, a.values)) {
      out.confirmed.push(...a.values);
      continue;
    }
    const where = `${a.partition}@${a.baseOffset}`;
    const sentIndex = requests.findIndex((r) => answeredOk(r, a.partition, a.baseOffset) && r.batches.some((b) => b.partition === a.partition && sameValues(b.values, a.values)));
    const sent = sentIndex >= 0 ? requests[sentIndex]!.batches.find((b) => b.partition === a.partition && sameValues(b.values, a.values))! : undefined;
    const earlier =
      sent && stored
        ? requests
            .slice(0, sentIndex)
            .find((r) => !answeredOk(r, a.partition) && r.batches.some((b) => b.partition === a.partition && b.firstSequence === sent.firstSequence && sameValues(b.values, stored.values)))
        : undefined;
    if (sent && stored && earlier && stored.baseSequence === sent.firstSequence && stored.values.length === a.values.length && !stored.values.some((v) => acknowledged.has(v))) {
      out.reusedSequence.push({
        values: a.values,
        description:
          `${a.values.join(',')} sent to broker ${requests[sentIndex]!.broker} with sequence ${sent.firstSequence}, which kafkajs had given ${stored.values.join(',')} ` +
          `in a request to broker ${earlier.broker} that failed (${describeAnswer(earlier.answer)}); answered as its duplicate at ${where}`,
      });
      continue;
    }
    out.lost.push(`${a.values.join(',')} acknowledged at ${where}, where the log has ${stored ? `${stored.values.join(',')} (sequence ${stored.baseSequence})` : 'no batch'}`);
  }
  return out;
}
