import { CorruptDataError } from '@gregor/common';
import { Reader, Writer } from '@gregor/protocol';

/**
 * `__consumer_offsets` keys and values in Kafka's formats (GroupMetadataManager schemas): every key and value
 * starts with an i16 version; strings are i16-length. Keys v0/v1 are offset commits, v2 group metadata.
 * gregor writes offset key v1 + value v3 and group key v2 + value v3 (IBP ≥ 2.3), and reads every older version.
 */
export interface OffsetKey {
  kind: 'offset';
  group: string;
  topic: string;
  partition: number;
}

export interface GroupKey {
  kind: 'group';
  group: string;
}

export interface OffsetAndMetadata {
  offset: number;
  leaderEpoch: number;
  metadata: string;
  commitTimestamp: number;
  /** Only in value v1 (explicit retention); -1 otherwise. */
  expireTimestamp: number;
}

export interface MemberRecord {
  memberId: string;
  groupInstanceId: string | null;
  clientId: string;
  clientHost: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  subscription: Buffer;
  assignment: Buffer;
}

export interface GroupRecord {
  protocolType: string;
  generationId: number;
  protocol: string | null;
  leader: string | null;
  currentStateTimestamp: number;
  members: MemberRecord[];
}

export function encodeOffsetKey(group: string, topic: string, partition: number): Buffer {
  return new Writer(64).int16(1).string(group).string(topic).int32(partition).toBuffer();
}

export function encodeGroupKey(group: string): Buffer {
  return new Writer(32).int16(2).string(group).toBuffer();
}

export function encodeOffsetValue(v: OffsetAndMetadata): Buffer {
  return new Writer(64).int16(3).int64(v.offset).int32(v.leaderEpoch).string(v.metadata).int64(v.commitTimestamp).toBuffer();
}

export function encodeGroupValue(g: GroupRecord): Buffer {
  const w = new Writer(256).int16(3).string(g.protocolType).int32(g.generationId).nullableString(g.protocol).nullableString(g.leader);
  w.int64(g.currentStateTimestamp);
  w.array(g.members, (w, m) => {
    w.string(m.memberId).nullableString(m.groupInstanceId).string(m.clientId).string(m.clientHost);
    w.int32(m.rebalanceTimeoutMs).int32(m.sessionTimeoutMs).bytes(m.subscription).bytes(m.assignment);
  });
  return w.toBuffer();
}

export function decodeKey(buf: Buffer): OffsetKey | GroupKey {
  const r = new Reader(buf);
  const version = r.int16();
  if (version === 0 || version === 1) return { kind: 'offset', group: r.string(), topic: r.string(), partition: r.int32() };
  if (version === 2) return { kind: 'group', group: r.string() };
  throw new CorruptDataError(`unknown __consumer_offsets key version ${version}`);
}

export function decodeOffsetValue(buf: Buffer): OffsetAndMetadata {
  const r = new Reader(buf);
  const version = r.int16();
  if (version < 0 || version > 3) throw new CorruptDataError(`unknown offset commit value version ${version}`);
  const offset = r.int64();
  const leaderEpoch = version >= 3 ? r.int32() : -1;
  const metadata = r.string();
  const commitTimestamp = r.int64();
  const expireTimestamp = version === 1 ? r.int64() : -1;
  return { offset, leaderEpoch, metadata, commitTimestamp, expireTimestamp };
}

export function decodeGroupValue(buf: Buffer): GroupRecord {
  const r = new Reader(buf);
  const version = r.int16();
  if (version < 0 || version > 3) throw new CorruptDataError(`unknown group metadata value version ${version}`);
  const protocolType = r.string();
  const generationId = r.int32();
  const protocol = r.nullableString();
  const leader = r.nullableString();
  const currentStateTimestamp = version >= 2 ? r.int64() : -1;
  const members = r.array((r): MemberRecord => {
    const memberId = r.string();
    const groupInstanceId = version >= 3 ? r.nullableString() : null;
    const clientId = r.string();
    const clientHost = r.string();
    const rebalanceTimeoutMs = version >= 1 ? r.int32() : -1;
    const sessionTimeoutMs = r.int32();
    return {
      memberId,
      groupInstanceId,
      clientId,
      clientHost,
      rebalanceTimeoutMs: rebalanceTimeoutMs < 0 ? sessionTimeoutMs : rebalanceTimeoutMs,
      sessionTimeoutMs,
      subscription: r.bytes(),
      assignment: r.bytes(),
    };
  }, 14);
  return { protocolType, generationId, protocol, leader, currentStateTimestamp, members };
}
