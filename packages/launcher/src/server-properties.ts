import type { BrokerSpec } from './cluster-spec.js';

/** What a broker of a local cluster needs besides its spec. */
export interface LocalBrokerContext {
  /** ZooKeeper connect string of the cluster. */
  zookeeperConnect: string;
  /** Directory holding the partition logs (log.dirs). */
  logDir: string;
  /** Brokers in the cluster (caps replication factors of internal topics). */
  clusterSize: number;
  /** Properties for every broker; the broker's own win. */
  common: Record<string, string>;
}

/**
 * server.properties of one broker of a local cluster: identity and addresses, then defaults
 * that suit one machine (short ZooKeeper sessions so crashes show quickly, internal topics no
 * wider than the cluster), then the cluster file's properties. With an internal port the brokers
 * talk to each other on the INTERNAL listener, the only one accepting controller and replica
 * requests, unless the cluster file sets its own listeners.
 */
export function localBrokerProperties(broker: BrokerSpec, ctx: LocalBrokerContext): Map<string, string> {
  const rf = String(Math.min(3, ctx.clusterSize));
  const props = new Map<string, string>([
    ['broker.id', String(broker.id)],
    ['listeners', `PLAINTEXT://${broker.host}:${broker.port}`],
    ['advertised.listeners', `PLAINTEXT://${broker.host}:${broker.port}`],
    ['log.dirs', ctx.logDir],
    ['zookeeper.connect', ctx.zookeeperConnect],
    ['http.host', broker.host],
    ['http.port', String(broker.httpPort)],
    ['zookeeper.session.timeout.ms', '6000'],
    ['controlled.shutdown.retry.backoff.ms', '1000'],
    ['default.replication.factor', '1'],
    ['offsets.topic.replication.factor', rf],
    ['group.initial.rebalance.delay.ms', '0'],
  ]);
  const ownListeners = 'listeners' in ctx.common || 'listeners' in broker.properties;
  if (broker.internalPort !== undefined && !ownListeners) {
    const both = `PLAINTEXT://${broker.host}:${broker.port},INTERNAL://${broker.host}:${broker.internalPort}`;
    props.set('listeners', both);
    props.set('advertised.listeners', both);
    props.set('listener.security.protocol.map', 'PLAINTEXT:PLAINTEXT,INTERNAL:PLAINTEXT');
    props.set('inter.broker.listener.name', 'INTERNAL');
  }
  for (const [k, v] of Object.entries(ctx.common)) props.set(k, v);
  for (const [k, v] of Object.entries(broker.properties)) props.set(k, v);
  return props;
}

/** Java properties text: `key=value` lines, with the characters Java treats specially escaped. */
export function renderProperties(props: ReadonlyMap<string, string>, header?: string): string {
  const escape = (s: string, isKey: boolean): string =>
    s
      .replace(/\\/g, '\\\\')
      .replace(/\n/g, '\\n')
      .replace(/\r/g, '\\r')
      .replace(/\t/g, '\\t')
      .replace(isKey ? /[=: #!]/g : /^ /, (c) => `\\${c}`);
  const lines = header ? header.split('\n').map((l) => `# ${l}`) : [];
  for (const [k, v] of props) lines.push(`${escape(k, true)}=${escape(v, false)}`);
  return `${lines.join('\n')}\n`;
}
