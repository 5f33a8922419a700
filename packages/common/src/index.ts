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
export { sleep, whenAborted, withTimeout, backoffMs, deferred, type Deferred } from './async.js';
export { topicNameProblem, validateTopicName, MAX_TOPIC_NAME_LENGTH, INTERNAL_TOPICS } from './topic-name.js';
export { closestName } from './closest-name.js';
export type { PartitionState, PartitionStateWithReplicas } from './partition-state.js';
