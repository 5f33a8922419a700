/** The old consumer's znodes (/consumers/<g>/ids|owners|offsets), as Kafka 0.8's ZookeeperConsumerConnector writes them. */
import { fail, json, object, parseObject, str, timestamp } from './znode-json.js';

export type SubscriptionPattern = 'static' | 'white_list' | 'black_list';

export interface ConsumerRegistration {
  /** topic (or regex for white_list/black_list) → number of streams */
  subscription: Record<string, number>;
  pattern: SubscriptionPattern;
  timestamp: number;
}

export function encodeConsumerRegistration(registration: ConsumerRegistration): Buffer {
  return json({ version: 1, subscription: registration.subscription, pattern: registration.pattern, timestamp: String(registration.timestamp) });
}

export function decodeConsumerRegistration(data: Buffer | string, what = 'consumer registration'): ConsumerRegistration {
  const obj = parseObject(data, what);
  const subscription: Record<string, number> = {};
  for (const [topic, streams] of Object.entries(object(obj, 'subscription', what))) {
    if (typeof streams !== 'number' || !Number.isInteger(streams) || streams < 1) fail(what, `stream count for "${topic}" must be a positive integer`);
    subscription[topic] = streams;
  }
  const pattern = str(obj, 'pattern', what);
  if (pattern !== 'static' && pattern !== 'white_list' && pattern !== 'black_list') fail(what, `unknown pattern "${pattern}"`);
  return { subscription, pattern, timestamp: obj.timestamp === undefined ? 0 : timestamp(obj, 'timestamp', what) };
}

/** Owner znode text: `<consumerId>-<threadIndex>`. */
export function encodeConsumerOwner(consumerThreadId: string): Buffer {
  return Buffer.from(consumerThreadId, 'utf8');
}

export function decodeConsumerOwner(data: Buffer | string): string {
  return (typeof data === 'string' ? data : data.toString('utf8')).trim();
}

/** Offset znode text: the next offset to consume, in decimal. */
export function encodeConsumerOffset(offset: bigint | number): Buffer {
  return Buffer.from(String(offset), 'utf8');
}

export function decodeConsumerOffset(data: Buffer | string): bigint {
  const text = (typeof data === 'string' ? data : data.toString('utf8')).trim();
  if (!/^-?\d+$/.test(text)) fail('consumer offset', `expected a decimal integer, got ${JSON.stringify(text.slice(0, 100))}`);
  return BigInt(text);
}
