export { SaslError, genericAuthenticationFailure } from './sasl-error.js';
export { plainClientToken, parsePlainToken, type PlainCredentials } from './plain.js';
export {
  SCRAM_MECHANISMS,
  DEFAULT_SCRAM_ITERATIONS,
  isScramMechanism,
  generateScramCredential,
  formatScramCredential,
  parseScramCredential,
  scramSaltedPassword,
  toSaslName,
  fromSaslName,
  secureRandomString,
  constantTimeEqual,
  type ScramMechanism,
  type ScramCredential,
} from './scram-formatter.js';
export { ScramServer } from './scram-server.js';
export { ScramClient } from './scram-client.js';
