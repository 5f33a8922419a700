// Producer drivers for the history writers: each sends ONE value to ONE partition with acks=all and no
// retry inside the client (the writer retries, so every attempt is in the history). A result counts as
// acknowledged only when the broker's answer names the partition without error.
import { ErrorCode, errorName as kafkaErrorName, silentLogger } from '@gregor/common';
import { KafkaClient, Producer } from '@gregor/client';
import { Kafka, logLevel, type Producer as KafkaJsProducer } from 'kafkajs';
import { errorName } from './history.js';

export interface DriverTimeouts {
  /** Produce timeoutMs: how long the leader may wait for the ISR. */
  produceTimeoutMs: number;
  /** Client request timeout (on top of produceTimeoutMs for a Produce). */
  requestTimeoutMs: number;
}

export interface ProduceDriver {
  readonly name: string;
  /** Resolves with the offset the broker wrote the value at; rejects with a classified error. */
  send(partition: number, value: string): Promise<number>;
  close(): Promise<void>;
}

/** A send that failed: `definite` when the broker certainly did not write the value. */
export class SendError extends Error {
  readonly definite: boolean;
  constructor(name: string, definite: boolean, options?: { cause?: unknown }) {
    super(name, options);
    this.definite = definite;
  }
}

/**
 * Kafka error codes that mean the record was not appended: checked before the append (no leader, unknown
 * partition, ISR below min.insync.replicas). Everything else may have been appended: NOT_LEADER_OR_FOLLOWER
 * and REQUEST_TIMED_OUT can come from a produce waiting in purgatory, NOT_ENOUGH_REPLICAS_AFTER_APPEND says
 * so, and a lost connection says nothing.
 */
const DEFINITE_CODES = new Set<number>([ErrorCode.UNKNOWN_TOPIC_OR_PARTITION, ErrorCode.LEADER_NOT_AVAILABLE, ErrorCode.NOT_ENOUGH_REPLICAS]);

function classify(err: unknown): SendError {
  if (err instanceof SendError) return err;
  let e = err as { code?: unknown; originalError?: unknown; cause?: unknown } | null;
  // kafkajs wraps the protocol error in retry errors.
  for (let i = 0; i < 3 && e && typeof e.code !== 'number' && (e.originalError || e.cause); i++) e = (e.originalError ?? e.cause) as typeof e;
  const code = typeof e?.code === 'number' ? e.code : null;
  return new SendError(code !== null ? kafkaErrorName(code) : errorName(e ?? err), code !== null && DEFINITE_CODES.has(code), { cause: err });
}

/** gregor's own Producer, retries 0. */
export function gregorDriver(bootstrap: string, topic: string, clientId: string, t: DriverTimeouts): ProduceDriver {
  const client = new KafkaClient({ brokers: bootstrap, clientId, requestTimeoutMs: t.requestTimeoutMs, connectTimeoutMs: t.requestTimeoutMs, metadataMaxAgeMs: 1000, logger: silentLogger() });
  const producer = new Producer(client, {
    acks: -1,
    retries: 0,
    requestTimeoutMs: t.produceTimeoutMs,
    // Bounds the wait for a leader before the send goes out (metadata); the send itself is one attempt.
    deliveryTimeoutMs: t.produceTimeoutMs + t.requestTimeoutMs,
    retryBackoffMs: 50,
    retryBackoffMaxMs: 200,
  });
  return {
    name: 'gregor',
    async send(partition, value) {
      try {
        const [r] = await producer.send({ topic, messages: [{ value, partition }] });
        if (!r || r.partition !== partition || r.offset < 0) throw new SendError(`no offset in the result (${JSON.stringify(r)})`, false);
        return r.offset;
      } catch (err) {
        // As Kafka's producer does after an error: the next send goes to the leader the cluster names now.
        await client.refreshMetadata([topic]).catch(() => undefined);
        throw classify(err);
      }
    },
    async close() {
      await producer.close().catch(() => undefined);
      await client.close();
    },
  };
}

/**
 * kafkajs 2.2.4 with retries 0. Its send() can resolve without re-sending a partition whose leader moved
 * (tulios/kafkajs#1303): the value counts only if its partition is in the result with error code 0.
 */
export function kafkajsDriver(bootstrap: string, topic: string, clientId: string, t: DriverTimeouts): ProduceDriver {
  const kafka = new Kafka({
    clientId,
    brokers: bootstrap.split(','),
    logLevel: logLevel.NOTHING,
    requestTimeout: t.produceTimeoutMs + t.requestTimeoutMs,
    connectionTimeout: t.requestTimeoutMs,
    retry: { retries: 0 },
  });
  let producer: KafkaJsProducer | null = null;
  let connecting: Promise<KafkaJsProducer> | null = null;
  const connected = (): Promise<KafkaJsProducer> => {
    if (producer) return Promise.resolve(producer);
    connecting ??= (async () => {
      const p = kafka.producer({ allowAutoTopicCreation: false, idempotent: false, retry: { retries: 0 }, metadataMaxAge: 1000 });
      try {
        await p.connect();
      } catch (err) {
        await p.disconnect().catch(() => undefined);
        throw err;
      }
      producer = p;
      return p;
    })().finally(() => (connecting = null));
    return connecting;
  };
  return {
    name: 'kafkajs',
    async send(partition, value) {
      let result;
      try {
        const p = await connected();
        result = await p.send({ topic, acks: -1, timeout: t.produceTimeoutMs, messages: [{ value, partition }] });
      } catch (err) {
        throw classify(err);
      }
      const r = result.find((x) => x.topicName === topic && x.partition === partition);
      if (!r) throw new SendError('kafkajs resolved without this partition (kafkajs#1303)', false);
      if (r.errorCode !== 0) throw classify({ code: r.errorCode, message: `error code ${r.errorCode}` });
      const offset = Number(r.baseOffset ?? r.offset);
      if (!Number.isSafeInteger(offset) || offset < 0) throw new SendError(`no offset in the result (${JSON.stringify(r)})`, false);
      return offset;
    },
    async close() {
      await connecting?.catch(() => undefined);
      await producer?.disconnect().catch(() => undefined);
    },
  };
}
