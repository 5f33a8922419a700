import { ConfigError } from '@gregor/common';
import { isSaslMechanism, isSecurityProtocol, jaasCredentials, parseJaasConfig, SECURITY_PROTOCOLS, type JaasEntry, type SaslMechanismName, type SecurityProtocol, type SslStoreSettings } from '@gregor/net';

/** TLS settings of one SSL or SASL_SSL listener (Kafka's ssl.* names, optionally listener.name.<l>. prefixed). */
export interface SslListenerSettings extends SslStoreSettings {
  /** ssl.client.auth: none | requested | required. */
  clientAuth: 'none' | 'requested' | 'required';
  /** ssl.endpoint.identification.algorithm: "https" checks host names when this broker connects to others; "" does not. */
  endpointIdentificationAlgorithm: string;
  /** ssl.enabled.protocols, e.g. TLSv1.2,TLSv1.3. */
  enabledProtocols: string[];
}

export interface SaslListenerSettings {
  /** sasl.enabled.mechanisms of the listener. */
  mechanisms: SaslMechanismName[];
  /** The parsed JAAS configuration per mechanism (listener.name.<l>.<mech>.sasl.jaas.config, else sasl.jaas.config). */
  jaas: Map<SaslMechanismName, JaasEntry[]>;
}

export interface ListenerSecurity {
  listenerName: string;
  protocol: SecurityProtocol;
  ssl: SslListenerSettings | null;
  sasl: SaslListenerSettings | null;
}

export interface AuthorizerSettings {
  /** super.users: principals allowed everything (`User:admin`). */
  superUsers: string[];
  /** allow.everyone.if.no.acl.found (default false). */
  allowEveryoneIfNoAclFound: boolean;
}

export interface BrokerSecurityConfig {
  listeners: Map<string, ListenerSecurity>;
  /** The mechanism this broker uses towards the inter-broker listener when it is SASL_*. */
  interBrokerSaslMechanism: SaslMechanismName | null;
  /** null: no authorizer configured (every request allowed; inter-broker APIs only on the inter-broker listener). */
  authorizer: AuthorizerSettings | null;
  /** connection.failed.authentication.delay.ms: wait before closing after a failed authentication. */
  failedAuthenticationDelayMs: number;
}

/** The authorizer classes accepted as the switch that turns ACLs on. */
export const ACL_AUTHORIZER_CLASSES = ['kafka.security.authorizer.AclAuthorizer', 'kafka.security.auth.SimpleAclAuthorizer'];

/** Settings that may be given per listener as `listener.name.<listener>.<setting>`. */
export const LISTENER_SCOPED_SETTINGS = [
  'ssl.keystore.type',
  'ssl.keystore.location',
  'ssl.keystore.password',
  'ssl.key.password',
  'ssl.keystore.certificate.chain',
  'ssl.keystore.key',
  'ssl.truststore.type',
  'ssl.truststore.location',
  'ssl.truststore.certificates',
  'ssl.client.auth',
  'ssl.endpoint.identification.algorithm',
  'ssl.enabled.protocols',
  'sasl.enabled.mechanisms',
];

const PREFIX = /^listener\.name\.([^.]+)\.(.+)$/;

/** Whether `name` is a listener-prefixed setting gregor understands (`listener.name.<l>.ssl.keystore.location`, `listener.name.<l>.plain.sasl.jaas.config`). */
export function isListenerScopedSetting(name: string): boolean {
  const m = PREFIX.exec(name);
  if (!m) return false;
  const rest = m[2]!;
  if (LISTENER_SCOPED_SETTINGS.includes(rest)) return true;
  const jaas = /^([a-z0-9-]+)\.sasl\.jaas\.config$/.exec(rest);
  return jaas !== null && isSaslMechanism(jaas[1]!.toUpperCase());
}

/** `listener.security.protocol.map` entries NAME:PROTOCOL. */
export function parseProtocolMap(entries: readonly string[]): Map<string, SecurityProtocol> {
  const map = new Map<string, SecurityProtocol>();
  for (const entry of entries) {
    const [name, protocol, ...rest] = entry.split(':').map((s) => s.trim());
    const p = (protocol ?? '').toUpperCase();
    if (!name || rest.length > 0 || !isSecurityProtocol(p)) {
      throw new ConfigError(`Invalid listener.security.protocol.map entry "${entry}": expected LISTENER:PROTOCOL with PROTOCOL one of ${SECURITY_PROTOCOLS.join(', ')}`);
    }
    const key = name.toUpperCase();
    if (map.has(key)) throw new ConfigError(`listener.security.protocol.map names ${key} twice`);
    map.set(key, p);
  }
  return map;
}

/**
 * The security of every listener: its protocol from listener.security.protocol.map (a listener
 * missing there stops the broker, as Kafka's "No security protocol defined for listener"), its TLS
 * and SASL settings (listener-prefixed first), and the inter-broker SASL mechanism and authorizer.
 */
export function buildSecurityConfig(
  raw: ReadonlyMap<string, string>,
  listenersSetting: string,
  listenerNames: readonly string[],
  interBrokerListener: string,
  protocolMap: ReadonlyMap<string, SecurityProtocol>,
): BrokerSecurityConfig {
  const scoped = (listener: string, name: string): string | undefined => {
    const prefix = `listener.name.${listener.toLowerCase()}.`;
    for (const [k, v] of raw) if (k.toLowerCase() === `${prefix}${name}`) return v.trim();
    const global = raw.get(name);
    return global === undefined ? undefined : global.trim();
  };
  const listeners = new Map<string, ListenerSecurity>();
  for (const name of listenerNames) {
    const protocol = protocolMap.get(name);
    if (!protocol) {
      throw new ConfigError(`Error creating broker listeners from '${listenersSetting}': No security protocol defined for listener ${name} (add ${name}:<PROTOCOL> to listener.security.protocol.map)`);
    }
    let ssl: SslListenerSettings | null = null;
    if (protocol === 'SSL' || protocol === 'SASL_SSL') {
      const clientAuth = (scoped(name, 'ssl.client.auth') ?? 'none').toLowerCase();
      if (clientAuth !== 'none' && clientAuth !== 'requested' && clientAuth !== 'required') {
        throw new ConfigError(`Invalid value "${clientAuth}" for ssl.client.auth of listener ${name}: must be one of none, requested, required`);
      }
      ssl = {
        keystoreType: scoped(name, 'ssl.keystore.type') ?? 'PEM',
        keystoreLocation: scoped(name, 'ssl.keystore.location') ?? null,
        keystorePassword: scoped(name, 'ssl.keystore.password') ?? null,
        keyPassword: scoped(name, 'ssl.key.password') ?? null,
        keystoreCertificateChain: scoped(name, 'ssl.keystore.certificate.chain') ?? null,
        keystoreKey: scoped(name, 'ssl.keystore.key') ?? null,
        truststoreType: scoped(name, 'ssl.truststore.type') ?? 'PEM',
        truststoreLocation: scoped(name, 'ssl.truststore.location') ?? null,
        truststoreCertificates: scoped(name, 'ssl.truststore.certificates') ?? null,
        clientAuth,
        endpointIdentificationAlgorithm: scoped(name, 'ssl.endpoint.identification.algorithm') ?? 'https',
        enabledProtocols: (scoped(name, 'ssl.enabled.protocols') ?? 'TLSv1.2,TLSv1.3').split(',').map((s) => s.trim()).filter((s) => s !== ''),
      };
      if (!ssl.keystoreLocation && !ssl.keystoreCertificateChain) {
        throw new ConfigError(`Listener ${name} is ${protocol} but has no keystore: set ssl.keystore.location (or listener.name.${name.toLowerCase()}.ssl.keystore.location)`);
      }
      if (clientAuth !== 'none' && !ssl.truststoreLocation && !ssl.truststoreCertificates) {
        throw new ConfigError(`Listener ${name} has ssl.client.auth=${clientAuth} but no truststore to verify clients: set ssl.truststore.location`);
      }
    }
    let sasl: SaslListenerSettings | null = null;
    if (protocol === 'SASL_PLAINTEXT' || protocol === 'SASL_SSL') {
      const mechanisms = (scoped(name, 'sasl.enabled.mechanisms') ?? 'SCRAM-SHA-256,SCRAM-SHA-512').split(',').map((s) => s.trim().toUpperCase()).filter((s) => s !== '');
      for (const m of mechanisms) {
        if (!isSaslMechanism(m)) throw new ConfigError(`sasl.enabled.mechanisms of listener ${name}: ${m} is not supported (supported: PLAIN, SCRAM-SHA-256, SCRAM-SHA-512)`);
      }
      if (mechanisms.length === 0) throw new ConfigError(`Listener ${name} is ${protocol} but sasl.enabled.mechanisms is empty`);
      const jaas = new Map<SaslMechanismName, JaasEntry[]>();
      for (const m of mechanisms as SaslMechanismName[]) {
        const setting = `listener.name.${name.toLowerCase()}.${m.toLowerCase()}.sasl.jaas.config`;
        const text = scoped(name, `${m.toLowerCase()}.sasl.jaas.config`) ?? raw.get('sasl.jaas.config')?.trim();
        if (text) jaas.set(m, parseJaasConfig(text, setting));
      }
      if ((mechanisms as string[]).includes('PLAIN') && !jaas.has('PLAIN')) {
        throw new ConfigError(`Listener ${name} enables PLAIN but has no users: set listener.name.${name.toLowerCase()}.plain.sasl.jaas.config with user_<name>="<password>" entries`);
      }
      sasl = { mechanisms: mechanisms as SaslMechanismName[], jaas };
    }
    listeners.set(name, { listenerName: name, protocol, ssl, sasl });
  }

  const interBroker = listeners.get(interBrokerListener)!;
  let interBrokerSaslMechanism: SaslMechanismName | null = null;
  if (interBroker.sasl) {
    const wanted = raw.get('sasl.mechanism.inter.broker.protocol')?.trim().toUpperCase() || interBroker.sasl.mechanisms[0]!;
    if (!isSaslMechanism(wanted) || !interBroker.sasl.mechanisms.includes(wanted)) {
      throw new ConfigError(`sasl.mechanism.inter.broker.protocol must be included in sasl.enabled.mechanisms when SASL is used for inter-broker communication (got ${wanted}, enabled on ${interBrokerListener}: ${interBroker.sasl.mechanisms.join(', ')})`);
    }
    if (!jaasCredentials(interBroker.sasl.jaas.get(wanted) ?? [])) {
      throw new ConfigError(`Inter-broker listener ${interBrokerListener} uses SASL ${wanted}: set listener.name.${interBrokerListener.toLowerCase()}.${wanted.toLowerCase()}.sasl.jaas.config with this broker's username="..." password="..."`);
    }
    interBrokerSaslMechanism = wanted;
  }

  const authorizerClass = raw.get('authorizer.class.name')?.trim() ?? '';
  let authorizer: AuthorizerSettings | null = null;
  if (authorizerClass !== '') {
    if (!ACL_AUTHORIZER_CLASSES.includes(authorizerClass)) {
      throw new ConfigError(`authorizer.class.name ${authorizerClass} is not supported: use kafka.security.authorizer.AclAuthorizer (or leave it empty for no authorizer)`);
    }
    const superUsers = (raw.get('super.users') ?? '').split(';').map((s) => s.trim()).filter((s) => s !== '');
    for (const p of superUsers) if (!/^[^:]+:.+$/.test(p)) throw new ConfigError(`super.users entry "${p}" must be a principal like User:admin`);
    const allow = (raw.get('allow.everyone.if.no.acl.found') ?? 'false').trim().toLowerCase();
    if (allow !== 'true' && allow !== 'false') throw new ConfigError(`Invalid value "${allow}" for configuration allow.everyone.if.no.acl.found: expected true or false`);
    authorizer = { superUsers, allowEveryoneIfNoAclFound: allow === 'true' };
  }
  const delay = Number(raw.get('connection.failed.authentication.delay.ms') ?? 100);
  if (!Number.isInteger(delay) || delay < 0) throw new ConfigError('connection.failed.authentication.delay.ms must be a non-negative integer');
  return { listeners, interBrokerSaslMechanism, authorizer, failedAuthenticationDelayMs: delay };
}
