import { Reader, Writer } from '@gregor/protocol';

/**
 * The Java consumer's embedded protocol (ConsumerProtocol v0), opaque to the broker: JoinGroup metadata
 * is a Subscription, SyncGroup assignments are Assignments. kcat/librdkafka and kafkajs use the same bytes.
 */
export interface Subscription {
  version: number;
  topics: string[];
  userData: Buffer | null;
}

export interface Assignment {
  version: number;
  /** topic → partitions */
  partitions: Map<string, number[]>;
  userData: Buffer | null;
}

export const CONSUMER_PROTOCOL_TYPE = 'consumer';

export function encodeSubscription(s: Subscription): Buffer {
  return new Writer(64).int16(s.version).array(s.topics, (w, t) => w.string(t)).nullableBytes(s.userData).toBuffer();
}

export function decodeSubscription(buf: Buffer): Subscription {
  const r = new Reader(buf);
  const version = r.int16();
  const topics = r.array((r) => r.string(), 2);
  // Later versions append fields (owned partitions...); v0 readers ignore them, as Kafka's do.
  const userData = r.remaining >= 4 ? r.nullableBytes() : null;
  return { version, topics, userData };
}

export function encodeAssignment(a: Assignment): Buffer {
  const w = new Writer(64).int16(a.version);
  w.array([...a.partitions], (w, [topic, ps]) => w.string(topic).array(ps, (w, p) => w.int32(p)));
  return w.nullableBytes(a.userData).toBuffer();
}

/** An empty buffer (a member the leader gave nothing) decodes as an empty assignment. */
export function decodeAssignment(buf: Buffer): Assignment {
  if (buf.length === 0) return { version: 0, partitions: new Map(), userData: null };
  const r = new Reader(buf);
  const version = r.int16();
  const partitions = new Map<string, number[]>();
  for (const [topic, ps] of r.array((r) => [r.string(), r.array((r) => r.int32(), 4)] as const, 6)) partitions.set(topic, ps);
  const userData = r.remaining >= 4 ? r.nullableBytes() : null;
  return { version, partitions, userData };
}
