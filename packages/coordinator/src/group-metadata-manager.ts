import { ErrorCode, type Logger } from '@gregor/common';
import { CompressionType, decodeRecordSet, encodeRecordBatch, type RecordInput } from '@gregor/protocol';
import type { GroupCoordinatorConfig } from './coordinator-config.js';
import { GroupMetadata, offsetKey } from './group-metadata.js';
import { MemberMetadata } from './member-metadata.js';
import type { OffsetsTopicLog } from './offsets-topic-log.js';
import { partitionForGroup } from './partition-for.js';
import {
  decodeGroupValue,
  decodeKey,
  decodeOffsetValue,
  encodeGroupKey,
  encodeGroupValue,
  encodeOffsetKey,
  encodeOffsetValue,
  type GroupRecord,
  type OffsetAndMetadata,
} from './records.js';

export interface TopicPartitionOffset {
  topic: string;
  partition: number;
  value: OffsetAndMetadata;
}

/** Append errors as the coordinator reports them (GroupMetadataManager's mapping). */
function coordinatorError(code: number, forOffsets: boolean): number {
  switch (code) {
    case ErrorCode.NONE:
      return ErrorCode.NONE;
    case ErrorCode.UNKNOWN_TOPIC_OR_PARTITION:
    case ErrorCode.NOT_ENOUGH_REPLICAS:
    case ErrorCode.NOT_ENOUGH_REPLICAS_AFTER_APPEND:
    case ErrorCode.REQUEST_TIMED_OUT:
      return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    case ErrorCode.NOT_LEADER_FOR_PARTITION:
    case ErrorCode.KAFKA_STORAGE_ERROR:
      return ErrorCode.NOT_COORDINATOR;
    case ErrorCode.MESSAGE_TOO_LARGE:
    case ErrorCode.RECORD_LIST_TOO_LARGE:
    case ErrorCode.INVALID_FETCH_SIZE:
      return forOffsets ? ErrorCode.INVALID_COMMIT_OFFSET_SIZE : ErrorCode.UNKNOWN_SERVER_ERROR;
    default:
      return forOffsets ? code : ErrorCode.UNKNOWN_SERVER_ERROR;
  }
}

/**
 * The groups of the `__consumer_offsets` partitions this broker leads (Kafka's GroupMetadataManager):
 * the in-memory cache, writes of group and offset records (acks=-1), loading a partition on becoming its
 * leader and dropping its groups on losing it.
 */
export class GroupMetadataManager {
  readonly #config: GroupCoordinatorConfig;
  readonly #log: OffsetsTopicLog;
  readonly #logger: Logger;
  readonly #groups = new Map<string, GroupMetadata>();
  /** Partitions loaded and served. */
  readonly #owned = new Set<number>();
  /** Partitions being loaded, with the election counter that started the load. */
  readonly #loading = new Map<number, number>();
  #epoch = 0;

  constructor(config: GroupCoordinatorConfig, log: OffsetsTopicLog, logger: Logger) {
    this.#config = config;
    this.#log = log;
    this.#logger = logger;
  }

  partitionFor(groupId: string): number {
    return partitionForGroup(groupId, this.#config.offsetsTopicNumPartitions);
  }

  isGroupLocal(groupId: string): boolean {
    return this.#owned.has(this.partitionFor(groupId));
  }

  isGroupLoading(groupId: string): boolean {
    return this.#loading.has(this.partitionFor(groupId));
  }

  isLoading(): boolean {
    return this.#loading.size > 0;
  }

  ownedPartitions(): number[] {
    return [...this.#owned].sort((a, b) => a - b);
  }

  getGroup(groupId: string): GroupMetadata | undefined {
    return this.#groups.get(groupId);
  }

  /** Adds a group unless one exists; returns the one held. */
  addGroup(group: GroupMetadata): GroupMetadata {
    const existing = this.#groups.get(group.groupId);
    if (existing) return existing;
    this.#groups.set(group.groupId, group);
    return group;
  }

  removeGroup(groupId: string): void {
    this.#groups.delete(groupId);
  }

  allGroups(): GroupMetadata[] {
    return [...this.#groups.values()];
  }

  #groupRecord(group: GroupMetadata, assignments: ReadonlyMap<string, Buffer>): GroupRecord {
    return {
      protocolType: group.protocolType ?? '',
      generationId: group.generationId,
      protocol: group.protocolName,
      leader: group.leaderId,
      currentStateTimestamp: group.currentStateTimestamp,
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        sessionTimeoutMs: m.sessionTimeoutMs,
        subscription: group.protocolName ? m.metadata(group.protocolName) : Buffer.alloc(0),
        assignment: assignments.get(m.memberId) ?? Buffer.alloc(0),
      })),
    };
  }

  async #append(groupId: string, records: RecordInput[], forOffsets: boolean): Promise<number> {
    const partition = this.partitionFor(groupId);
    if (!this.#owned.has(partition)) return ErrorCode.NOT_COORDINATOR;
    const batch = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: Date.now(), records });
    try {
      return coordinatorError(await this.#log.append(partition, batch), forOffsets);
    } catch (err) {
      this.#logger.error({ err, group: groupId }, 'writing to __consumer_offsets failed');
      return ErrorCode.UNKNOWN_SERVER_ERROR;
    }
  }

  /** Writes the group record (the leader's SyncGroup, or an empty group after its last member left). */
  storeGroup(group: GroupMetadata, assignments: ReadonlyMap<string, Buffer>): Promise<number> {
    const now = Date.now();
    const record = { key: encodeGroupKey(group.groupId), value: encodeGroupValue(this.#groupRecord(group, assignments)), headers: [], timestamp: now };
    return this.#append(group.groupId, [record], false);
  }

  /** Writes offset commits and, once replicated, puts them in the cache. */
  async storeOffsets(group: GroupMetadata, offsets: TopicPartitionOffset[]): Promise<number> {
    if (offsets.length === 0) return ErrorCode.NONE;
    const now = Date.now();
    const records = offsets.map((o) => ({ key: encodeOffsetKey(group.groupId, o.topic, o.partition), value: encodeOffsetValue(o.value), headers: [], timestamp: now }));
    const code = await this.#append(group.groupId, records, true);
    if (code === ErrorCode.NONE) for (const o of offsets) group.offsets.set(offsetKey(o.topic, o.partition), o);
    return code;
  }

  /** Tombstones for a group and the given offsets (deletion, expiry). */
  async removeGroupRecords(groupId: string, withGroup: boolean, offsets: readonly { topic: string; partition: number }[]): Promise<number> {
    const now = Date.now();
    const records: RecordInput[] = offsets.map((o) => ({ key: encodeOffsetKey(groupId, o.topic, o.partition), value: null, headers: [], timestamp: now }));
    if (withGroup) records.push({ key: encodeGroupKey(groupId), value: null, headers: [], timestamp: now });
    if (records.length === 0) return ErrorCode.NONE;
    return this.#append(groupId, records, false);
  }

  /**
   * Becoming leader of an offsets partition: replay it from the log start (later records win, tombstones
   * delete), then serve its groups. A newer election or a resignation during the load abandons it.
   */
  async loadPartition(partition: number, onLoaded: (group: GroupMetadata) => void): Promise<void> {
    if (this.#owned.has(partition) || this.#loading.has(partition)) return;
    const epoch = ++this.#epoch;
    this.#loading.set(partition, epoch);
    const started = Date.now();
    const offsets = new Map<string, Map<string, TopicPartitionOffset>>();
    const groups = new Map<string, GroupRecord | null>();
    let records = 0;
    try {
      let { logStartOffset: position, logEndOffset: end } = this.#log.read(partition, 0, 0);
      while (position < end) {
        const chunk = this.#log.read(partition, position, this.#config.offsetsLoadBufferSize);
        end = chunk.logEndOffset;
        if (chunk.records.length === 0) break;
        for (const batch of decodeRecordSet(chunk.records)) {
          for (const r of batch.records) {
            if (!r.key) continue;
            records++;
            const key = decodeKey(r.key);
            if (key.kind === 'offset') {
              let byGroup = offsets.get(key.group);
              if (!byGroup) offsets.set(key.group, (byGroup = new Map()));
              const k = offsetKey(key.topic, key.partition);
              if (r.value === null) byGroup.delete(k);
              else byGroup.set(k, { topic: key.topic, partition: key.partition, value: decodeOffsetValue(r.value) });
            } else if (r.value === null) {
              groups.set(key.group, null);
              offsets.delete(key.group);
            } else {
              groups.set(key.group, decodeGroupValue(r.value));
            }
          }
          position = batch.baseOffset + batch.lastOffsetDelta + 1;
        }
        // Let requests and timers run between chunks of a large partition.
        await new Promise((resolve) => setImmediate(resolve));
        if (this.#loading.get(partition) !== epoch) return;
      }
    } catch (err) {
      this.#logger.error({ err, partition }, 'loading __consumer_offsets partition failed');
      if (this.#loading.get(partition) === epoch) this.#loading.delete(partition);
      return;
    }
    if (this.#loading.get(partition) !== epoch) return;
    const ids = new Set([...groups.keys(), ...offsets.keys()]);
    let loaded = 0;
    for (const id of ids) {
      const record = groups.get(id);
      const groupOffsets = offsets.get(id);
      if (record === null && (!groupOffsets || groupOffsets.size === 0)) continue;
      if (record === undefined && (!groupOffsets || groupOffsets.size === 0)) continue;
      const group = this.#groupFrom(id, record ?? null);
      for (const [k, o] of groupOffsets ?? []) group.offsets.set(k, o);
      if (this.#groups.has(id)) continue;
      this.#groups.set(id, group);
      onLoaded(group);
      loaded++;
    }
    this.#loading.delete(partition);
    this.#owned.add(partition);
    this.#logger.info({ partition, groups: loaded, records, tookMs: Date.now() - started }, 'loaded __consumer_offsets partition');
  }

  #groupFrom(id: string, record: GroupRecord | null): GroupMetadata {
    const hasMembers = record !== null && record.members.length > 0;
    const group = new GroupMetadata(id, hasMembers ? 'Stable' : 'Empty', record?.currentStateTimestamp ?? Date.now());
    if (!record) return group;
    group.protocolType = record.protocolType || null;
    group.generationId = record.generationId;
    group.protocolName = record.protocol;
    for (const m of record.members) {
      const member = new MemberMetadata({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        rebalanceTimeoutMs: m.rebalanceTimeoutMs,
        sessionTimeoutMs: m.sessionTimeoutMs,
        protocolType: record.protocolType,
        supportedProtocols: record.protocol ? [{ name: record.protocol, metadata: m.subscription }] : [],
      });
      member.assignment = m.assignment;
      group.members.set(member.memberId, member);
      if (member.groupInstanceId !== null) group.staticMembers.set(member.groupInstanceId, member.memberId);
    }
    group.leaderId = record.leader;
    group.subscribedTopics = group.computeSubscribedTopics();
    return group;
  }

  /** Losing leadership of an offsets partition: its groups leave the cache (they become Dead). */
  unloadPartition(partition: number, onUnloaded: (group: GroupMetadata) => void): void {
    this.#loading.delete(partition);
    const wasOwned = this.#owned.delete(partition);
    let n = 0;
    for (const group of [...this.#groups.values()]) {
      if (this.partitionFor(group.groupId) !== partition) continue;
      this.#groups.delete(group.groupId);
      onUnloaded(group);
      n++;
    }
    if (wasOwned) this.#logger.info({ partition, groups: n }, 'unloaded __consumer_offsets partition');
  }

  shutdown(onUnloaded: (group: GroupMetadata) => void): void {
    for (const p of [...this.#owned, ...this.#loading.keys()]) this.unloadPartition(p, onUnloaded);
  }
}
