import { ErrorCode } from './error-codes.js';
import { GregorError } from './errors.js';

/** Kafka's limit: 249 characters, so that `<topic>-<partition>` dirs and index names fit file-name limits. */
export const MAX_TOPIC_NAME_LENGTH = 249;
const LEGAL = /^[a-zA-Z0-9._-]+$/;

/**
 * Validates a topic name as Kafka does (Topic.validate). A name that passes can never escape a log
 * directory: it holds no '/', no NUL, and is neither '.' nor '..'.
 */
export function topicNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'Topic name is illegal, it can\'t be empty';
  if (name === '.' || name === '..') return 'Topic name cannot be "." or ".."';
  if (name.length > MAX_TOPIC_NAME_LENGTH) return `Topic name is illegal, it can't be longer than ${MAX_TOPIC_NAME_LENGTH} characters`;
  if (!LEGAL.test(name)) return `Topic name "${name}" is illegal, it contains a character other than ASCII alphanumerics, '.', '_' and '-'`;
  return undefined;
}

export function validateTopicName(name: string): void {
  const problem = topicNameProblem(name);
  if (problem) throw new GregorError(ErrorCode.INVALID_TOPIC_EXCEPTION, problem);
}

/** Internal topics (not shown unless asked, not writable by clients). */
export const INTERNAL_TOPICS = new Set(['__consumer_offsets', '__transaction_state']);
