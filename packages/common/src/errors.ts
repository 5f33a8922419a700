import { ErrorCode, errorName, isRetriable } from './error-codes.js';

/** Base error of gregor: carries a Kafka error code so any layer can turn it into a wire response. */
export class GregorError extends Error {
  readonly code: number;
  readonly retriable: boolean;

  constructor(code: number, message?: string, options?: { cause?: unknown }) {
    super(message ?? errorName(code), options);
    this.name = new.target.name;
    this.code = code;
    this.retriable = isRetriable(code);
  }

  get codeName(): string {
    return errorName(this.code);
  }
}

/** A broker answered with a non-zero error code. */
export class KafkaProtocolError extends GregorError {}

/** Bytes on the wire or on disk that cannot be decoded. */
export class CorruptDataError extends GregorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.CORRUPT_MESSAGE, message, options);
  }
}

/** A malformed request: the connection that sent it is closed. */
export class InvalidRequestError extends GregorError {
  constructor(message: string, options?: { cause?: unknown }) {
    super(ErrorCode.INVALID_REQUEST, message, options);
  }
}

/** An invalid or unknown configuration setting. */
export class ConfigError extends GregorError {
  constructor(message: string) {
    super(ErrorCode.INVALID_CONFIG, message);
  }
}

/** An operation did not finish in time. */
export class TimeoutError extends GregorError {
  constructor(message: string) {
    super(ErrorCode.REQUEST_TIMED_OUT, message);
  }
}
