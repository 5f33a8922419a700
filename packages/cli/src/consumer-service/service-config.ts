import { ConfigError } from '@gregor/common';
import { consumerConfig, type ConsumerConfig, type TopicFilter } from '@gregor/consumer';

/** What the service consumes and where it answers; the other keys of the file are consumer settings (Kafka's names). */
export interface ConsumerServiceConfig {
  consumer: ConsumerConfig;
  /** topic → streams, or a filter with its stream count. */
  subscription: { kind: 'static'; topics: Record<string, number> } | { kind: 'filter'; filter: TopicFilter; numStreams: number };
  httpHost: string;
  httpPort: number;
}

const SERVICE_KEYS = new Set(['topics', 'topic.whitelist', 'topic.blacklist', 'num.streams', 'http.host', 'http.port']);

function int(name: string, value: string | undefined, fallback: number, min: number, max: number): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value.trim())) throw new ConfigError(`consumer-service config "${name}" must be an integer, got "${value}"`);
  const n = Number(value);
  if (n < min || n > max) throw new ConfigError(`consumer-service config "${name}" must be between ${min} and ${max}, got ${n}`);
  return n;
}

/**
 * Service keys: `topics` (`t1,t2` or `t1:4,t2:1`), or `topic.whitelist` / `topic.blacklist` (regex) with
 * `num.streams` (default 1); `http.host` (default 127.0.0.1), `http.port` (default 8090, 0 = any free port).
 */
export function consumerServiceConfig(props: ReadonlyMap<string, string>): ConsumerServiceConfig {
  const consumerProps: Record<string, string> = {};
  for (const [k, v] of props) if (!SERVICE_KEYS.has(k)) consumerProps[k] = v;
  const consumer = consumerConfig(consumerProps);
  const numStreams = int('num.streams', props.get('num.streams'), 1, 1, 1000);
  const selectors = ['topics', 'topic.whitelist', 'topic.blacklist'].filter((k) => props.has(k));
  if (selectors.length !== 1) throw new ConfigError('consumer-service config needs exactly one of "topics", "topic.whitelist", "topic.blacklist"');
  let subscription: ConsumerServiceConfig['subscription'];
  if (props.has('topics')) {
    const topics: Record<string, number> = {};
    for (const entry of props.get('topics')!.split(',').map((s) => s.trim()).filter(Boolean)) {
      const [topic, streams] = entry.split(':');
      topics[topic!] = int(`topics (${topic})`, streams, numStreams, 1, 1000);
    }
    if (Object.keys(topics).length === 0) throw new ConfigError('consumer-service config "topics" is empty');
    subscription = { kind: 'static', topics };
  } else {
    const kind = props.has('topic.whitelist') ? 'white_list' : 'black_list';
    subscription = { kind: 'filter', filter: { kind, regex: props.get(kind === 'white_list' ? 'topic.whitelist' : 'topic.blacklist')! }, numStreams };
  }
  return {
    consumer,
    subscription,
    httpHost: props.get('http.host') ?? '127.0.0.1',
    httpPort: int('http.port', props.get('http.port'), 8090, 0, 65535),
  };
}
