import { ConfigError } from '@gregor/common';
import { jaasCredentials, loadTlsKeyMaterial, type ClientSecurity } from '@gregor/net';
import type { BrokerConfig } from '../config/broker-config.js';

/** No host name check (ssl.endpoint.identification.algorithm empty): the chain is still verified. */
const skipHostnameCheck = (): undefined => undefined;

/**
 * How this broker connects to other brokers' inter-broker listener (controller requests, replica
 * fetches, controlled shutdown, the HTTP admin's requests): TLS with the listener's truststore and
 * keystore (a client certificate for ssl.client.auth), SASL with sasl.mechanism.inter.broker.protocol
 * and the username/password of the listener's JAAS entry. undefined for PLAINTEXT.
 */
export function interBrokerClientSecurity(cfg: BrokerConfig): ClientSecurity | undefined {
  const listener = cfg.security.listeners.get(cfg.interBrokerListenerName)!;
  const security: ClientSecurity = {};
  if (listener.ssl) {
    const material = loadTlsKeyMaterial(listener.ssl, `listener.name.${listener.listenerName.toLowerCase()}.`);
    security.tls = { ...material, ...(listener.ssl.endpointIdentificationAlgorithm === '' ? { checkServerIdentity: skipHostnameCheck } : {}) };
  }
  if (listener.sasl) {
    const mechanism = cfg.security.interBrokerSaslMechanism!;
    const credentials = jaasCredentials(listener.sasl.jaas.get(mechanism) ?? []);
    if (!credentials) throw new ConfigError(`Inter-broker listener ${listener.listenerName} uses SASL ${mechanism} but its JAAS entry has no username/password`);
    security.sasl = { mechanism, ...credentials };
  }
  return security.tls || security.sasl ? security : undefined;
}
