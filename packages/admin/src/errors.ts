import { ErrorCode, GregorError, isRetriable } from '@gregor/common';

/**
 * Every error the admin API answers with: a stable `GREGOR_ERR_*` code, its HTTP status and what it
 * means. docs/errors.md lists the same table (a test keeps the two in step).
 */
export const ADMIN_ERRORS = {
  GREGOR_ERR_VALIDATION: { status: 400, meaning: 'The path parameters, query string or body do not match the route\'s JSON schema.' },
  GREGOR_ERR_BAD_REQUEST: { status: 400, meaning: 'The body is not valid JSON (or is empty while declaring a JSON content type).' },
  GREGOR_ERR_INVALID_TOPIC: { status: 400, meaning: 'The topic name is illegal (empty, ".", "..", longer than 249 characters, or a character outside [a-zA-Z0-9._-]).', kafka: ErrorCode.INVALID_TOPIC_EXCEPTION },
  GREGOR_ERR_INVALID_PARTITIONS: { status: 400, meaning: 'The partition count is not positive, or does not grow the topic.', kafka: ErrorCode.INVALID_PARTITIONS },
  GREGOR_ERR_INVALID_REPLICATION_FACTOR: { status: 400, meaning: 'The replication factor is not positive, or larger than the number of live brokers.', kafka: ErrorCode.INVALID_REPLICATION_FACTOR },
  GREGOR_ERR_INVALID_REPLICA_ASSIGNMENT: { status: 400, meaning: 'A manual replica assignment is inconsistent (gaps, duplicates, unknown brokers, uneven replication factor).', kafka: ErrorCode.INVALID_REPLICA_ASSIGNMENT },
  GREGOR_ERR_INVALID_CONFIG: { status: 400, meaning: 'A topic configuration name is unknown or its value is invalid.', kafka: ErrorCode.INVALID_CONFIG },
  GREGOR_ERR_INVALID_REQUEST: { status: 400, meaning: 'The request combines settings that exclude each other (for example partitions or replicationFactor together with assignments, or offset together with timestamp), or asks for something the state does not allow (shifting an offset that was never committed).', kafka: ErrorCode.INVALID_REQUEST },
  GREGOR_ERR_INVALID_USER: { status: 400, meaning: 'A SCRAM user request with an empty name or password, an unknown mechanism or fewer than 4096 iterations.' },
  GREGOR_ERR_UNAUTHORIZED: { status: 401, meaning: 'A write (POST, PATCH, DELETE), a record read or a users request without an `Authorization: Bearer <token>` header while an admin token is configured.' },
  GREGOR_ERR_FORBIDDEN: { status: 403, meaning: 'A bearer token that is not the configured one.' },
  GREGOR_ERR_HOST_NOT_ALLOWED: { status: 403, meaning: 'The Host header names a host outside `http.allowed.hosts` (a guard against DNS rebinding).' },
  GREGOR_ERR_TOPIC_DELETION_DISABLED: { status: 403, meaning: 'Topic deletion is disabled on this cluster (`delete.topic.enable=false`).', kafka: ErrorCode.TOPIC_DELETION_DISABLED },
  GREGOR_ERR_NOT_FOUND: { status: 404, meaning: 'No route matches the method and path.' },
  GREGOR_ERR_UNKNOWN_TOPIC: { status: 404, meaning: 'The topic does not exist (in this broker\'s metadata).', kafka: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
  GREGOR_ERR_UNKNOWN_GROUP: { status: 404, meaning: 'The consumer group has no node under /consumers in ZooKeeper, and its coordinator knows neither it nor offsets of it.', kafka: ErrorCode.GROUP_ID_NOT_FOUND },
  GREGOR_ERR_UNKNOWN_BROKER: { status: 404, meaning: 'The broker is not alive in this broker\'s metadata.' },
  GREGOR_ERR_UNKNOWN_PARTITION: { status: 404, meaning: 'The topic exists but has no partition with this number.' },
  GREGOR_ERR_UNKNOWN_USER: { status: 404, meaning: 'The user has no SCRAM credentials (of the mechanisms named).' },
  GREGOR_ERR_TOPIC_EXISTS: { status: 409, meaning: 'A topic with this name already exists.', kafka: ErrorCode.TOPIC_ALREADY_EXISTS },
  GREGOR_ERR_OPERATION_IN_PROGRESS: { status: 409, meaning: 'A preferred replica election or partition reassignment is already in progress (its /admin znode exists).' },
  GREGOR_ERR_GROUP_NOT_EMPTY: { status: 409, meaning: 'Offsets can only be reset for an inactive consumer group: no consumer registered under /consumers/G/ids, or a coordinator group in state Empty or Dead.', kafka: ErrorCode.NON_EMPTY_GROUP },
  GREGOR_ERR_RECORD_TOO_LARGE: { status: 413, meaning: 'A produced record batch is larger than the topic\'s max.message.bytes.', kafka: ErrorCode.MESSAGE_TOO_LARGE },
  GREGOR_ERR_BODY_TOO_LARGE: { status: 413, meaning: 'The body is larger than the admin server\'s body limit (1 MiB by default).' },
  GREGOR_ERR_UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'The body is not `application/json`.' },
  GREGOR_ERR_INTERNAL: { status: 500, meaning: 'An unexpected failure. The answer says nothing about it beyond a request id; the broker log has the details under that id. Kafka error codes without a specific entry here also map to it.' },
  GREGOR_ERR_BROKER_NOT_READY: { status: 503, meaning: 'The broker is starting or shutting down, or its ZooKeeper session is not healthy (GET /healthz).' },
  GREGOR_ERR_UNAVAILABLE: { status: 503, meaning: 'A retriable Kafka error (no leader yet, not controller, connection to another broker failed); retry later.' },
  GREGOR_ERR_TIMEOUT: { status: 504, meaning: 'The operation did not finish in time and nothing shows it took effect (for example a ZooKeeper request timed out).', kafka: ErrorCode.REQUEST_TIMED_OUT },
} as const satisfies Record<string, { status: number; meaning: string; kafka?: number }>;

export type AdminErrorCode = keyof typeof ADMIN_ERRORS;

/** An error answered as `{ error: { code, message, kafkaErrorCode? } }` with the code's HTTP status. */
export class AdminError extends Error {
  readonly code: AdminErrorCode;
  readonly statusCode: number;
  readonly kafkaErrorCode: number | undefined;

  constructor(code: AdminErrorCode, message: string, kafkaErrorCode?: number) {
    super(message);
    this.name = 'AdminError';
    this.code = code;
    this.statusCode = ADMIN_ERRORS[code].status;
    this.kafkaErrorCode = kafkaErrorCode;
  }
}

const BY_KAFKA_CODE = new Map<number, AdminErrorCode>();
for (const [code, entry] of Object.entries(ADMIN_ERRORS) as [AdminErrorCode, { kafka?: number }][]) {
  if (entry.kafka !== undefined) BY_KAFKA_CODE.set(entry.kafka, code);
}

/** The admin code for a Kafka error code: its own entry, else 503 for retriable codes, else 500. */
export function adminCodeForKafka(kafkaErrorCode: number): AdminErrorCode {
  return BY_KAFKA_CODE.get(kafkaErrorCode) ?? (isRetriable(kafkaErrorCode) ? 'GREGOR_ERR_UNAVAILABLE' : 'GREGOR_ERR_INTERNAL');
}

export function fromKafkaError(kafkaErrorCode: number, message: string): AdminError {
  return new AdminError(adminCodeForKafka(kafkaErrorCode), message, kafkaErrorCode);
}

export interface ErrorBody {
  error: { code: AdminErrorCode; message: string; kafkaErrorCode?: number };
}

/** Fastify's own errors that are the client's fault, by their FST_ERR_* code. */
const FASTIFY_CODES: Record<string, AdminErrorCode> = {
  FST_ERR_CTP_BODY_TOO_LARGE: 'GREGOR_ERR_BODY_TOO_LARGE',
  FST_ERR_CTP_INVALID_MEDIA_TYPE: 'GREGOR_ERR_UNSUPPORTED_MEDIA_TYPE',
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: 'GREGOR_ERR_BAD_REQUEST',
  FST_ERR_CTP_EMPTY_JSON_BODY: 'GREGOR_ERR_BAD_REQUEST',
  FST_ERR_CTP_INVALID_JSON_BODY: 'GREGOR_ERR_BAD_REQUEST',
  FST_ERR_VALIDATION: 'GREGOR_ERR_VALIDATION',
};

/** Turns anything thrown by a route, a hook or fastify itself into an AdminError. */
export function toAdminError(err: unknown): AdminError {
  if (err instanceof AdminError) return err;
  if (err instanceof GregorError) return fromKafkaError(err.code, err.message);
  const e = err as { code?: unknown; statusCode?: unknown; validation?: unknown; message?: unknown };
  const message = typeof e?.message === 'string' ? e.message : String(err);
  if (e?.validation) return new AdminError('GREGOR_ERR_VALIDATION', message);
  const mapped = typeof e?.code === 'string' ? FASTIFY_CODES[e.code] : undefined;
  if (mapped) return new AdminError(mapped, message);
  // JSON.parse failures reach the error handler as a 400 SyntaxError.
  if (err instanceof SyntaxError && e.statusCode === 400) return new AdminError('GREGOR_ERR_BAD_REQUEST', message);
  return new AdminError('GREGOR_ERR_INTERNAL', message);
}

export function errorBody(err: AdminError): ErrorBody {
  const error: ErrorBody['error'] = { code: err.code, message: err.message };
  if (err.kafkaErrorCode !== undefined) error.kafkaErrorCode = err.kafkaErrorCode;
  return { error };
}
