import { ErrorCode, GregorError } from '@gregor/common';

/** No message arrived within `consumer.timeout.ms` (Kafka's ConsumerTimeoutException); the stream stays usable. */
export class ConsumerTimeoutError extends GregorError {
  constructor(timeoutMs: number) {
    super(ErrorCode.REQUEST_TIMED_OUT, `no message within consumer.timeout.ms (${timeoutMs} ms)`);
  }
}

/** Every rebalance attempt failed (Kafka's ConsumerRebalanceFailedException). */
export class ConsumerRebalanceFailedError extends GregorError {
  constructor(consumerId: string, attempts: number, options?: { cause?: unknown }) {
    super(ErrorCode.REBALANCE_IN_PROGRESS, `${consumerId} can't rebalance after ${attempts} attempts`, options);
  }
}

/** A batch is larger than `fetch.message.max.bytes`: the consumer can never get past it (Kafka's MessageSizeTooLargeException). */
export class MessageSizeTooLargeError extends GregorError {
  constructor(topic: string, partition: number, offset: number, fetchSize: number) {
    super(
      ErrorCode.MESSAGE_TOO_LARGE,
      `Found a message larger than the maximum fetch size of this consumer on topic ${topic} partition ${partition} at fetch offset ${offset}. Increase the fetch size, or decrease the maximum message size the broker will allow (fetch.message.max.bytes=${fetchSize}).`,
    );
  }
}

/** The connector was shut down, or a call came in an order it does not allow. */
export class ConsumerStateError extends GregorError {
  constructor(message: string) {
    super(ErrorCode.INVALID_REQUEST, message);
  }
}
