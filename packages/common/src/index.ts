export { ErrorCode, errorName, isRetriable, type ErrorCodeName, type ErrorCodeValue } from './error-codes.js';
export {
  GregorError,
  KafkaProtocolError,
  CorruptDataError,
  InvalidRequestError,
  ConfigError,
  TimeoutError,
} from './errors.js';
export { createLogger, silentLogger, type Logger } from './logger.js';
export { sleep, withTimeout, backoffMs, deferred, type Deferred } from './async.js';
