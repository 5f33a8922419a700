import { ErrorCode, GregorError, TimeoutError } from '@gregor/common';

/** ZooKeeper's own result codes (KeeperException.Code), as node-zookeeper-client reports them. */
export const ZkErrorCode = {
  OK: 0,
  SYSTEM_ERROR: -1,
  RUNTIME_INCONSISTENCY: -2,
  DATA_INCONSISTENCY: -3,
  CONNECTION_LOSS: -4,
  MARSHALLING_ERROR: -5,
  UNIMPLEMENTED: -6,
  OPERATION_TIMEOUT: -7,
  BAD_ARGUMENTS: -8,
  API_ERROR: -100,
  NO_NODE: -101,
  NO_AUTH: -102,
  BAD_VERSION: -103,
  NO_CHILDREN_FOR_EPHEMERALS: -108,
  NODE_EXISTS: -110,
  NOT_EMPTY: -111,
  SESSION_EXPIRED: -112,
  INVALID_CALLBACK: -113,
  INVALID_ACL: -114,
  AUTH_FAILED: -115,
} as const;

const ZK_NAMES = new Map<number, string>(Object.entries(ZkErrorCode).map(([name, code]) => [code, name]));

export function zkErrorName(zkCode: number): string {
  return ZK_NAMES.get(zkCode) ?? `ZK_ERROR_${zkCode}`;
}

/** A ZooKeeper operation failed with `zkCode`; `opIndex` names the failing op of a multi. */
export class ZkError extends GregorError {
  readonly zkCode: number;
  readonly path: string | undefined;
  readonly opIndex: number | undefined;

  constructor(zkCode: number, path?: string, options?: { opIndex?: number; cause?: unknown }) {
    // Connection trouble is retriable for callers; everything else is a server-side answer.
    const kafkaCode =
      zkCode === ZkErrorCode.CONNECTION_LOSS || zkCode === ZkErrorCode.OPERATION_TIMEOUT ? ErrorCode.NETWORK_EXCEPTION : ErrorCode.UNKNOWN_SERVER_ERROR;
    const where = path === undefined ? '' : ` (${path}${options?.opIndex === undefined ? '' : `, op ${options.opIndex}`})`;
    super(kafkaCode, `ZooKeeper ${zkErrorName(zkCode)} [${zkCode}]${where}`, { cause: options?.cause });
    this.zkCode = zkCode;
    this.path = path;
    this.opIndex = options?.opIndex;
  }

  get zkCodeName(): string {
    return zkErrorName(this.zkCode);
  }
}

export function isZkError(error: unknown, zkCode?: number): error is ZkError {
  return error instanceof ZkError && (zkCode === undefined || error.zkCode === zkCode);
}

/**
 * The connection, not the server, failed: CONNECTION_LOSS, OPERATION_TIMEOUT, or no answer within the operation
 * timeout. The operation may or may not have been applied; retrying is safe only for reads and conditional writes.
 */
export function isZkConnectionError(error: unknown): boolean {
  if (error instanceof TimeoutError) return true;
  return error instanceof ZkError && (error.zkCode === ZkErrorCode.CONNECTION_LOSS || error.zkCode === ZkErrorCode.OPERATION_TIMEOUT);
}
