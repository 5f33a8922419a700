import { brokerConfigKey } from '@gregor/broker/config/broker-config-keys';
import { ACL_AUTHORIZER_CLASSES } from '@gregor/broker/config/security-config';
import { UsageError } from '../usage-error.js';

/** The options of `gregor acls` that choose where ACLs are read and written (parseArgs values). */
export interface AclTargetArgs {
  'bootstrap-server'?: string;
  'command-config'?: string;
  authorizer?: string;
  'authorizer-properties'?: string[];
}

/** ZooKeeper as the authorizer's properties name it. */
export interface AuthorizerZooKeeper {
  connect: string;
  sessionTimeoutMs: number;
  connectionTimeoutMs: number;
}

/** AclCommand's AdminClientService (the brokers) or its authorizer service (the authorizer on ZooKeeper, in this process). */
export type AclTarget = { kind: 'brokers'; bootstrap: string; commandConfig: string | undefined } | { kind: 'authorizer'; zooKeeper: AuthorizerZooKeeper };

/**
 * AclAuthorizer falls back to the broker's zookeeper.session.timeout.ms default (KafkaConfig's: 18000 since Kafka 2.5),
 * so the tool takes the same as gregor's brokers; zookeeper.connection.timeout.ms defaults to the session timeout.
 */
const DEFAULT_SESSION_TIMEOUT_MS = Number(brokerConfigKey('zookeeper.session.timeout.ms')!.default);

/** CommandLineUtils.parseKeyValueArgs(acceptMissingValue = false): `key=value` each, split at the first '='. */
function keyValues(args: readonly string[], usage: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const arg of args) {
    if (arg === '') continue;
    const eq = arg.indexOf('=');
    const key = eq < 0 ? arg : arg.slice(0, eq);
    const value = eq < 0 ? '' : arg.slice(eq + 1);
    if (value === '') throw new UsageError(`Missing value for key ${key}`, usage);
    out.set(key, value);
  }
  return out;
}

function intOf(props: Map<string, string>, names: readonly string[], fallback: number, usage: string): number {
  const name = names.find((n) => props.has(n));
  if (name === undefined) return fallback;
  const raw = props.get(name)!.trim();
  if (!/^-?\d+$/.test(raw)) throw new UsageError(`Invalid value ${raw} for configuration ${name}: Not a number of type INT`, usage);
  return Number(raw);
}

/**
 * AclAuthorizer.configure's ZooKeeper settings: zookeeper.connect is required (even with
 * authorizer.zookeeper.url, which overrides it), as are the authorizer.-prefixed timeouts.
 */
function authorizerZooKeeper(properties: readonly string[], usage: string): AuthorizerZooKeeper {
  const props = keyValues(properties, usage);
  const connect = props.get('zookeeper.connect');
  if (connect === undefined) throw new UsageError('Missing required configuration "zookeeper.connect" which has no default value.', usage);
  const sessionTimeoutMs = intOf(props, ['authorizer.zookeeper.session.timeout.ms', 'zookeeper.session.timeout.ms'], DEFAULT_SESSION_TIMEOUT_MS, usage);
  const connectionTimeoutMs = intOf(props, ['authorizer.zookeeper.connection.timeout.ms', 'zookeeper.connection.timeout.ms'], sessionTimeoutMs, usage);
  return { connect: props.get('authorizer.zookeeper.url') ?? connect, sessionTimeoutMs, connectionTimeoutMs };
}

/**
 * AclCommandOptions.checkArgs' checks of the service options, then the authorizer class (Kafka's two
 * ZooKeeper authorizers; the default is kafka.security.auth.SimpleAclAuthorizer) and its properties.
 */
export function aclTarget(a: AclTargetArgs, usage: string): AclTarget {
  const bootstrap = a['bootstrap-server'];
  if (bootstrap !== undefined && a.authorizer !== undefined) throw new UsageError('Only one of --bootstrap-server or --authorizer must be specified', usage);
  if (bootstrap === undefined && a['authorizer-properties'] === undefined) throw new UsageError('Missing required argument "[authorizer-properties]"', usage);
  if (a['command-config'] !== undefined && bootstrap === undefined) throw new UsageError('The --command-config option can only be used with --bootstrap-server option', usage);
  if (a['authorizer-properties'] !== undefined && bootstrap !== undefined) throw new UsageError('The --authorizer-properties option can only be used with --authorizer option', usage);
  if (bootstrap !== undefined) return { kind: 'brokers', bootstrap, commandConfig: a['command-config'] };
  if (a.authorizer !== undefined && !ACL_AUTHORIZER_CLASSES.includes(a.authorizer.trim())) {
    throw new UsageError(`Authorizer ${a.authorizer} is not supported: use ${ACL_AUTHORIZER_CLASSES.join(' or ')} (ACLs in ZooKeeper)`, usage);
  }
  return { kind: 'authorizer', zooKeeper: authorizerZooKeeper(a['authorizer-properties']!, usage) };
}
