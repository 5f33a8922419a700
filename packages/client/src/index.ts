export { parseBrokerAddress, parseBrokerList, type ClientConfig, type BrokerAddress } from './config.js';
export { NetworkError, UnsupportedVersionError, ClientClosedError } from './errors.js';
export { murmur2, toPositive, defaultPartition, DefaultPartitioner, type RecordKey, type PartitionerOptions } from './partitioner.js';
export { retry, isRetriableError, AbortError, DEFAULT_RETRY, type RetryOptions } from './retry.js';
