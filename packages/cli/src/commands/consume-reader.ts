import { Admin, ClientClosedError, KafkaClient, Reader, type ClientSecurity, type ConsumedRecord, type ReaderConfig } from '@gregor/client';
import { AbortError } from '@gregor/client';
import { createLogger } from '@gregor/common';
import { UsageError } from '../usage-error.js';
import { drained } from '../output-drain.js';

export interface ReaderConsumeOptions {
  bootstrap: string;
  /** From --command-config: TLS and/or SASL for a secured listener. */
  security?: ClientSecurity | undefined;
  group: string;
  topic: string | undefined;
  whitelist: string | undefined;
  /** Consumer settings with Kafka's names (the Java consumer's). */
  properties: Record<string, string>;
  fromBeginning: boolean;
  max: number;
  idleMs: number | undefined;
  format(record: ConsumedRecord): string;
  output: NodeJS.WritableStream;
  usage: string;
}

/** The consumer settings the group reader understands, mapped to its config; others are reported and ignored. */
const PROPERTIES = ['auto.offset.reset', 'client.id', 'session.timeout.ms', 'heartbeat.interval.ms', 'auto.commit.interval.ms', 'enable.auto.commit', 'partition.assignment.strategy', 'max.partition.fetch.bytes', 'fetch.max.wait.ms', 'fetch.min.bytes', 'max.poll.interval.ms'];

function positiveInt(properties: Record<string, string>, name: string, usage: string): number | undefined {
  const v = properties[name];
  if (v === undefined) return undefined;
  if (!/^\d+$/.test(v.trim())) throw new UsageError(`consumer property ${name} must be a non-negative integer, got "${v}"`, usage);
  return Number(v);
}

/** Kafka's `partition.assignment.strategy` class names or short names → the reader's balancer names. */
function balancers(value: string, usage: string): string[] {
  return value.split(',').map((s) => {
    const name = s.trim().split('.').at(-1)!.toLowerCase();
    if (name === 'range' || name === 'rangeassignor') return 'range';
    if (name === 'roundrobin' || name === 'roundrobinassignor') return 'roundrobin';
    throw new UsageError(`partition.assignment.strategy ${s.trim()} is not supported: range or roundrobin`, usage);
  });
}

/** ReaderConfig from the console consumer's options (auto.offset.reset: earliest|smallest, latest|largest). */
export function readerConfig(o: Pick<ReaderConsumeOptions, 'bootstrap' | 'security' | 'group' | 'properties' | 'fromBeginning' | 'usage'>, topics: string[]): { config: ReaderConfig; commit: boolean; ignored: string[] } {
  const p = o.properties;
  const reset = p['auto.offset.reset'] ?? (o.fromBeginning ? 'earliest' : 'latest');
  const startOffset = reset === 'earliest' || reset === 'smallest' ? 'earliest' : reset === 'latest' || reset === 'largest' ? 'latest' : undefined;
  if (!startOffset) throw new UsageError(`auto.offset.reset must be earliest, latest, smallest or largest, got "${reset}"`, o.usage);
  if (o.fromBeginning && p['auto.offset.reset'] !== undefined && startOffset !== 'earliest') throw new UsageError('--from-beginning and auto.offset.reset=latest contradict each other', o.usage);
  const enableCommit = p['enable.auto.commit'] ?? 'true';
  if (enableCommit !== 'true' && enableCommit !== 'false') throw new UsageError(`enable.auto.commit must be true or false, got "${enableCommit}"`, o.usage);
  const config: ReaderConfig = {
    brokers: o.bootstrap,
    clientId: p['client.id'] ?? 'console-consumer',
    groupId: o.group,
    groupTopics: topics,
    startOffset,
    // Kafka's auto.commit.interval.ms default is 5000; offsets of what was printed are committed on it and on exit.
    commitIntervalMs: positiveInt(p, 'auto.commit.interval.ms', o.usage) ?? 5000,
    ...(o.security ? { security: o.security } : {}),
    // Warnings (joins retried, fetches failing over) on stderr, as the console consumer's log4j WARN; LOG_LEVEL=debug shows the group and fetch steps.
    logger: createLogger('consume', { level: process.env['LOG_LEVEL'] ?? 'warn' }),
  };
  const session = positiveInt(p, 'session.timeout.ms', o.usage);
  if (session !== undefined) config.sessionTimeoutMs = session;
  const heartbeat = positiveInt(p, 'heartbeat.interval.ms', o.usage);
  if (heartbeat !== undefined) config.heartbeatIntervalMs = heartbeat;
  const maxPoll = positiveInt(p, 'max.poll.interval.ms', o.usage);
  if (maxPoll !== undefined) config.rebalanceTimeoutMs = maxPoll;
  const partitionBytes = positiveInt(p, 'max.partition.fetch.bytes', o.usage);
  if (partitionBytes !== undefined) config.maxPartitionFetchBytes = partitionBytes;
  const maxWait = positiveInt(p, 'fetch.max.wait.ms', o.usage);
  if (maxWait !== undefined) config.maxWaitMs = maxWait;
  const minBytes = positiveInt(p, 'fetch.min.bytes', o.usage);
  if (minBytes !== undefined) config.minBytes = minBytes;
  if (p['partition.assignment.strategy'] !== undefined) config.groupBalancers = balancers(p['partition.assignment.strategy'], o.usage);
  return { config, commit: enableCommit === 'true', ignored: Object.keys(p).filter((k) => !PROPERTIES.includes(k) && k !== 'group.id') };
}

/**
 * `gregor consume --group G`: a member of a broker-side consumer group (JoinGroup/SyncGroup through the
 * group coordinator, offsets in __consumer_offsets), as kafka-console-consumer --group. Offsets of the
 * records printed are committed every auto.commit.interval.ms and when it ends (--max, --timeout-ms
 * without a record, Ctrl-C), then it leaves the group.
 */
export async function consumeWithReader(o: ReaderConsumeOptions): Promise<number> {
  const selectors = [o.topic, o.whitelist].filter((s) => s !== undefined);
  if (selectors.length !== 1) throw new UsageError('give exactly one of --topic and --whitelist', o.usage);
  let topics: string[];
  if (o.topic !== undefined) topics = [o.topic];
  else {
    // The pattern is matched against the topics that exist now (the group's subscription is fixed).
    let pattern: RegExp;
    try {
      pattern = new RegExp(`^(?:${o.whitelist})$`);
    } catch (error) {
      throw new UsageError(`--whitelist is not a valid regular expression: ${(error as Error).message}`, o.usage);
    }
    const client = new KafkaClient({ brokers: o.bootstrap, clientId: 'gregor-cli', connectTimeoutMs: 5000, retries: 5, ...(o.security ? { security: o.security } : {}) });
    try {
      topics = (await new Admin(client).listTopics()).filter((t) => !t.startsWith('__') && pattern.test(t));
    } finally {
      await client.close();
    }
    if (topics.length === 0) throw new UsageError(`no topic matches --whitelist ${o.whitelist}`, o.usage);
  }
  const { config, commit, ignored } = readerConfig(o, topics);
  for (const name of ignored) console.error(`WARN: consumer property ${name} is not used by gregor's group consumer`);
  const reader = new Reader(config);
  const stop = new AbortController();
  let idleTimer: NodeJS.Timeout | undefined;
  const armIdle = (): void => {
    if (o.idleMs === undefined) return;
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => stop.abort(new Error('idle timeout')), o.idleMs);
  };
  const onSignal = (): void => stop.abort(new Error('interrupted'));
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  const onOutputError = (error: NodeJS.ErrnoException): void => {
    if (error.code === 'EPIPE') stop.abort(error); // a reader that went away (`| head`)
  };
  o.output.on('error', onOutputError);
  let count = 0;
  try {
    armIdle();
    while (count < o.max && !stop.signal.aborted) {
      const m = await reader.fetchMessage(stop.signal);
      armIdle();
      if (!o.output.write(`${o.format(m)}\n`)) await drained(o.output, stop.signal);
      count++;
      if (commit) await reader.commitMessages(m).catch(() => undefined); // a stale generation's message is not committed
    }
  } catch (error) {
    if (!(stop.signal.aborted && (error instanceof AbortError || error instanceof ClientClosedError || (error as Error).name === 'AbortError'))) throw error;
  } finally {
    clearTimeout(idleTimer);
    process.removeListener('SIGINT', onSignal);
    process.removeListener('SIGTERM', onSignal);
    o.output.removeListener('error', onOutputError);
    await reader.close();
  }
  console.error(`Processed a total of ${count} messages`);
  return 0;
}
