export { Connection, type ConnectionOptions, type SendOptions, type VersionRange } from './connection.js';
export { ConnectionPool, type ConnectionPoolOptions, type PoolAddress } from './connection-pool.js';
export { NetworkError, NoCommonVersionError, ClientClosedError, AuthenticationError } from './errors.js';
export { retry, isRetriableError, AbortError, DEFAULT_RETRY, type RetryOptions } from './retry.js';
export { AbstractFetcherThread, type FetcherOptions, type FetcherSource, type PartitionFetchState } from './abstract-fetcher-thread.js';
export { FetchSessionHandler, byTopic, INVALID_SESSION_ID, INITIAL_EPOCH, FINAL_EPOCH, type FetchRequestData, type SessionPartition } from './fetch-session-handler.js';
export {
  clientSecurityFromProperties,
  securityProtocolOf,
  isSecurityProtocol,
  isSaslMechanism,
  SECURITY_PROTOCOLS,
  SASL_MECHANISMS,
  type ClientSecurity,
  type SaslCredentials,
  type SecurityProtocol,
  type SaslMechanismName,
} from './security/client-security.js';
export { parseJaasConfig, jaasCredentials, jaasPlainUsers, type JaasEntry } from './security/jaas.js';
export { loadTlsKeyMaterial, type SslStoreSettings, type TlsKeyMaterial } from './security/key-material.js';
