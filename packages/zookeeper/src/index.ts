export { ZkClient, type ZkClientOptions } from './zk-client.js';
export { ZkError, ZkErrorCode, zkErrorName, isZkError } from './zk-errors.js';
export type { ZkStat, ZkCreateMode, ZkData, ZkOp, ZkOpResult, ZkWatchEvent, ZkWatchEventType, ZkWatcher } from './zk-types.js';
