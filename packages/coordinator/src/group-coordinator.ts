import { randomUUID } from 'node:crypto';
import { ErrorCode, type Logger } from '@gregor/common';
import type {
  DescribedGroup,
  JoinGroupRequest,
  JoinGroupResponse,
  ListedGroup,
  MemberIdentity,
  MemberResponse,
  OffsetCommitRequest,
  OffsetCommitResponseTopic,
  OffsetFetchResponseTopic,
  SyncGroupRequest,
  SyncGroupResponse,
} from '@gregor/protocol';
import { NEW_MEMBER_JOIN_TIMEOUT_MS, type GroupCoordinatorConfig } from './coordinator-config.js';
import { GroupMetadata, offsetKey } from './group-metadata.js';
import { GroupMetadataManager, type TopicPartitionOffset } from './group-metadata-manager.js';
import { MemberMetadata } from './member-metadata.js';
import type { OffsetsTopicLog } from './offsets-topic-log.js';

export interface JoinContext {
  clientId: string;
  clientHost: string;
  /** JoinGroup v4+ without a group instance id gets MEMBER_ID_REQUIRED first. */
  requireKnownMemberId: boolean;
}

/** Authorized operations are not computed; Kafka's "not requested" value. */
const AUTHORIZED_OPERATIONS_OMITTED = -2147483648;

function joinError(memberId: string, errorCode: number): JoinGroupResponse {
  return { throttleTimeMs: 0, errorCode, generationId: -1, protocolName: '', leader: '', memberId, members: [] };
}

/**
 * The broker-side group coordinator (Kafka 2.4's GroupCoordinator): JoinGroup/SyncGroup/Heartbeat/LeaveGroup
 * drive each group through Empty → PreparingRebalance → CompletingRebalance → Stable; the delayed join
 * (with the initial delay for an empty group) and each member's session deadline are timers owned here.
 * Offsets and group records go to `__consumer_offsets` through the GroupMetadataManager.
 */
export class GroupCoordinator {
  readonly config: GroupCoordinatorConfig;
  readonly manager: GroupMetadataManager;
  readonly #logger: Logger;
  #active = false;
  #expiryTimer: NodeJS.Timeout | undefined;

  constructor(config: GroupCoordinatorConfig, log: OffsetsTopicLog, logger: Logger) {
    this.config = config;
    this.#logger = logger;
    this.manager = new GroupMetadataManager(config, log, logger);
  }

  get isActive(): boolean {
    return this.#active;
  }

  startup(): void {
    this.#active = true;
    this.#expiryTimer = setInterval(() => void this.#expireOffsets(), this.config.offsetsRetentionCheckIntervalMs);
    this.#expiryTimer.unref();
  }

  shutdown(): void {
    this.#active = false;
    clearInterval(this.#expiryTimer);
    this.manager.shutdown((g) => this.#onGroupUnloaded(g));
  }

  partitionFor(groupId: string): number {
    return this.manager.partitionFor(groupId);
  }

  /** This broker became leader of an offsets partition: load it. */
  onElection(partition: number): Promise<void> {
    return this.manager.loadPartition(partition, (g) => this.#onGroupLoaded(g));
  }

  /** This broker no longer leads an offsets partition: its groups go away here. */
  onResignation(partition: number): void {
    this.manager.unloadPartition(partition, (g) => this.#onGroupUnloaded(g));
  }

  #onGroupLoaded(group: GroupMetadata): void {
    for (const m of group.members.values()) this.#scheduleHeartbeat(group, m, m.sessionTimeoutMs);
  }

  #onGroupUnloaded(group: GroupMetadata): void {
    const previous = group.state;
    group.state = 'Dead';
    clearTimeout(group.joinTimer);
    for (const t of group.pendingMembers.values()) clearTimeout(t);
    group.pendingMembers.clear();
    for (const m of group.members.values()) {
      clearTimeout(m.heartbeatTimer);
      if (previous === 'PreparingRebalance') this.#invokeJoin(m, joinError(m.memberId, ErrorCode.NOT_COORDINATOR));
      if (previous === 'CompletingRebalance') this.#invokeSync(m, { throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR, assignment: Buffer.alloc(0) });
    }
  }

  /** Errors every group request gets before looking at the group. */
  #groupStatusError(groupId: string, requireGroupId = true): number {
    if (!this.#active) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (requireGroupId && groupId.length === 0) return ErrorCode.INVALID_GROUP_ID;
    if (this.manager.isGroupLoading(groupId)) return ErrorCode.COORDINATOR_LOAD_IN_PROGRESS;
    if (!this.manager.isGroupLocal(groupId)) return ErrorCode.NOT_COORDINATOR;
    return ErrorCode.NONE;
  }

  // ---------------------------------------------------------------- JoinGroup

  handleJoinGroup(req: JoinGroupRequest, ctx: JoinContext): Promise<JoinGroupResponse> {
    const status = this.#groupStatusError(req.groupId);
    if (status !== ErrorCode.NONE) return Promise.resolve(joinError(req.memberId, status));
    if (req.sessionTimeoutMs < this.config.groupMinSessionTimeoutMs || req.sessionTimeoutMs > this.config.groupMaxSessionTimeoutMs) {
      return Promise.resolve(joinError(req.memberId, ErrorCode.INVALID_SESSION_TIMEOUT));
    }
    const isUnknownMember = req.memberId === '';
    let group = this.manager.getGroup(req.groupId);
    if (!group) {
      if (!isUnknownMember) return Promise.resolve(joinError(req.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      group = this.manager.addGroup(new GroupMetadata(req.groupId, 'Empty'));
    }
    const g = group;
    return new Promise((resolve) => {
      if (isUnknownMember) this.#doUnknownJoin(g, req, ctx, resolve);
      else this.#doCurrentMemberJoin(g, req, ctx, resolve);
      // A join can be what the delayed join was waiting for.
      if (g.is('PreparingRebalance')) this.#tryCompleteJoin(g);
    });
  }

  #doUnknownJoin(group: GroupMetadata, req: JoinGroupRequest, ctx: JoinContext, respond: (r: JoinGroupResponse) => void): void {
    if (group.is('Dead')) return respond(joinError('', ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!group.supportsProtocols(req.protocolType, req.protocols)) return respond(joinError('', ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    // Kafka's generateMemberId: a static member's id starts with its group.instance.id.
    const memberId = `${req.groupInstanceId ?? ctx.clientId}-${randomUUID()}`;
    if (group.hasStaticMember(req.groupInstanceId)) return this.#rejoinStaticMember(group, req.groupInstanceId, memberId, req, respond);
    if (ctx.requireKnownMemberId && req.groupInstanceId === null) {
      // KIP-394: hand out the id first; the member must join again with it before its session runs out.
      const timer = setTimeout(() => this.#removePendingMember(group, memberId), req.sessionTimeoutMs);
      timer.unref();
      group.pendingMembers.set(memberId, timer);
      return respond(joinError(memberId, ErrorCode.MEMBER_ID_REQUIRED));
    }
    this.#addMemberAndRebalance(group, memberId, req, ctx, respond);
  }

  /**
   * KIP-345 (Kafka 2.4's doUnknownJoinGroup): a known group.instance.id joining without its member id is the
   * same instance restarted. It takes a new member id in the old member's place; the old id is fenced (its
   * parked requests answered FENCED_INSTANCE_ID). A Stable or CompletingRebalance group does not rebalance:
   * the member gets the current generation back at once, with the old leader id so that it does not assign.
   */
  #rejoinStaticMember(group: GroupMetadata, instanceId: string, newMemberId: string, req: JoinGroupRequest, respond: (r: JoinGroupResponse) => void): void {
    const oldMemberId = group.staticMembers.get(instanceId)!;
    this.#logger.info({ group: group.groupId, instanceId, oldMemberId, newMemberId }, 'static member rejoined with an unknown member id; fencing the old one');
    const currentLeader = group.leaderId;
    const old = group.members.get(oldMemberId)!;
    this.#invokeJoin(old, joinError(oldMemberId, ErrorCode.FENCED_INSTANCE_ID));
    this.#invokeSync(old, { throttleTimeMs: 0, errorCode: ErrorCode.FENCED_INSTANCE_ID, assignment: Buffer.alloc(0) });
    const member = group.replaceStaticMember(oldMemberId, newMemberId);
    this.#scheduleHeartbeat(group, member, member.sessionTimeoutMs);
    member.supportedProtocols = req.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) }));
    member.awaitingJoin = respond;
    if (group.is('Stable') || group.is('CompletingRebalance')) {
      this.#invokeJoin(member, {
        throttleTimeMs: 0,
        errorCode: ErrorCode.NONE,
        generationId: group.generationId,
        protocolName: group.protocolName ?? '',
        leader: currentLeader ?? '',
        memberId: newMemberId,
        members: [],
      });
    }
    // PreparingRebalance: it waits for the join to complete like everyone else.
  }

  #doCurrentMemberJoin(group: GroupMetadata, req: JoinGroupRequest, ctx: JoinContext, respond: (r: JoinGroupResponse) => void): void {
    const memberId = req.memberId;
    if (group.is('Dead')) return respond(joinError(memberId, ErrorCode.COORDINATOR_NOT_AVAILABLE));
    if (!group.supportsProtocols(req.protocolType, req.protocols)) return respond(joinError(memberId, ErrorCode.INCONSISTENT_GROUP_PROTOCOL));
    const pending = group.pendingMembers.get(memberId);
    if (pending) {
      clearTimeout(pending);
      group.pendingMembers.delete(memberId);
      return this.#addMemberAndRebalance(group, memberId, req, ctx, respond);
    }
    // An older incarnation of a static member, or a duplicate instance: it must shut down (KIP-345).
    if (group.isStaticMemberFenced(memberId, req.groupInstanceId)) return respond(joinError(memberId, ErrorCode.FENCED_INSTANCE_ID));
    const member = group.members.get(memberId);
    // Unknown id, or a group.instance.id the group does not know: the member resets its id and joins again.
    if (!member || (req.groupInstanceId !== null && !group.hasStaticMember(req.groupInstanceId))) return respond(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    switch (group.state) {
      case 'PreparingRebalance':
        return this.#updateMemberAndRebalance(group, member, req, respond);
      case 'CompletingRebalance':
        if (member.matches(req.protocols)) {
          // A retried join of the generation being synced: answer it again.
          return respond(this.#joinResult(group, member));
        }
        return this.#updateMemberAndRebalance(group, member, req, respond);
      case 'Stable':
        if (group.isLeader(memberId) || !member.matches(req.protocols)) return this.#updateMemberAndRebalance(group, member, req, respond);
        return respond(this.#joinResult(group, member));
      default:
        return respond(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    }
  }

  #joinResult(group: GroupMetadata, member: MemberMetadata): JoinGroupResponse {
    return {
      throttleTimeMs: 0,
      errorCode: ErrorCode.NONE,
      generationId: group.generationId,
      protocolName: group.protocolName ?? '',
      leader: group.leaderId ?? '',
      memberId: member.memberId,
      members: group.isLeader(member.memberId) ? group.allMemberMetadata() : [],
    };
  }

  #addMemberAndRebalance(group: GroupMetadata, memberId: string, req: JoinGroupRequest, ctx: JoinContext, respond: (r: JoinGroupResponse) => void): void {
    const member = new MemberMetadata({
      memberId,
      groupInstanceId: req.groupInstanceId,
      clientId: ctx.clientId,
      clientHost: ctx.clientHost,
      rebalanceTimeoutMs: req.rebalanceTimeoutMs,
      sessionTimeoutMs: req.sessionTimeoutMs,
      protocolType: req.protocolType,
      supportedProtocols: req.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) })),
    });
    member.isNew = true;
    member.awaitingJoin = respond;
    // Members joining during the initial delay extend it (InitialDelayedJoin).
    if (group.is('PreparingRebalance') && group.generationId === 0) group.newMemberAdded = true;
    group.add(member);
    this.#scheduleHeartbeat(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS);
    this.#maybePrepareRebalance(group, `member ${memberId} joined`);
  }

  #updateMemberAndRebalance(group: GroupMetadata, member: MemberMetadata, req: JoinGroupRequest, respond: (r: JoinGroupResponse) => void): void {
    member.supportedProtocols = req.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) }));
    member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    member.sessionTimeoutMs = req.sessionTimeoutMs;
    if (member.awaitingJoin) member.awaitingJoin(joinError(member.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
    member.awaitingJoin = respond;
    this.#maybePrepareRebalance(group, `member ${member.memberId} rejoined`);
  }

  #maybePrepareRebalance(group: GroupMetadata, reason: string): void {
    if (group.canRebalance()) this.#prepareRebalance(group, reason);
  }

  #prepareRebalance(group: GroupMetadata, reason: string): void {
    if (group.is('CompletingRebalance')) this.#resetAndPropagateAssignmentError(group, ErrorCode.REBALANCE_IN_PROGRESS);
    clearTimeout(group.joinTimer);
    const initial = group.is('Empty');
    group.transitionTo('PreparingRebalance');
    this.#logger.info({ group: group.groupId, generation: group.generationId, reason }, 'preparing to rebalance');
    if (initial) {
      const delay = this.config.groupInitialRebalanceDelayMs;
      group.initialDelayRemainingMs = Math.max(group.rebalanceTimeoutMs() - delay, 0);
      group.newMemberAdded = false;
      this.#armJoinTimer(group, delay, true);
    } else {
      this.#armJoinTimer(group, group.rebalanceTimeoutMs(), false);
    }
  }

  #armJoinTimer(group: GroupMetadata, delayMs: number, initial: boolean): void {
    clearTimeout(group.joinTimer);
    group.joinTimer = setTimeout(() => {
      group.joinTimer = undefined;
      if (!group.is('PreparingRebalance')) return;
      if (initial && group.newMemberAdded && group.initialDelayRemainingMs > 0) {
        group.newMemberAdded = false;
        const next = Math.min(this.config.groupInitialRebalanceDelayMs, group.initialDelayRemainingMs);
        group.initialDelayRemainingMs -= next;
        this.#armJoinTimer(group, next, true);
        return;
      }
      this.#completeJoin(group);
    }, delayMs);
    group.joinTimer.unref();
    (group.joinTimer as NodeJS.Timeout & { initial?: boolean }).initial = initial;
  }

  /** DelayedJoin.tryComplete: everyone known has rejoined (the initial delay always runs its course). */
  #tryCompleteJoin(group: GroupMetadata): void {
    const timer = group.joinTimer as (NodeJS.Timeout & { initial?: boolean }) | undefined;
    if (!group.is('PreparingRebalance') || timer?.initial) return;
    if (group.hasAllMembersJoined()) {
      clearTimeout(group.joinTimer);
      group.joinTimer = undefined;
      this.#completeJoin(group);
    }
  }

  #completeJoin(group: GroupMetadata): void {
    if (group.is('Dead')) return;
    // Dynamic members that did not rejoin go; static ones stay until their session runs out (KIP-345).
    for (const m of [...group.members.values()]) {
      if (m.isAwaitingJoin || m.isStaticMember) continue;
      this.#logger.info({ group: group.groupId, member: m.memberId }, 'member did not rejoin in time; removing it');
      clearTimeout(m.heartbeatTimer);
      group.remove(m.memberId);
    }
    if (!group.maybeElectNewJoinedLeader() && group.members.size > 0) {
      // Only static members that have not rejoined are left: wait another rebalance timeout for them or their sessions.
      this.#logger.warn({ group: group.groupId }, 'no member rejoined; the rebalance waits another rebalance timeout');
      this.#armJoinTimer(group, group.rebalanceTimeoutMs(), false);
      return;
    }
    group.initNextGeneration();
    if (group.is('Empty')) {
      this.#logger.info({ group: group.groupId, generation: group.generationId }, 'group is empty');
      void this.manager.storeGroup(group, new Map()).then((code) => {
        if (code !== ErrorCode.NONE) this.#logger.warn({ group: group.groupId, errorCode: code }, 'failed to write the empty group');
      });
      return;
    }
    this.#logger.info({ group: group.groupId, generation: group.generationId, protocol: group.protocolName, members: group.members.size }, 'rebalance completed joins');
    for (const m of group.members.values()) {
      const result = this.#joinResult(group, m);
      m.isNew = false;
      this.#invokeJoin(m, result);
      this.#scheduleHeartbeat(group, m, m.sessionTimeoutMs);
    }
  }

  #invokeJoin(member: MemberMetadata, response: JoinGroupResponse): void {
    const respond = member.awaitingJoin;
    member.awaitingJoin = null;
    respond?.(response);
  }

  #invokeSync(member: MemberMetadata, response: SyncGroupResponse): void {
    const respond = member.awaitingSync;
    member.awaitingSync = null;
    respond?.(response);
  }

  #removePendingMember(group: GroupMetadata, memberId: string): void {
    const timer = group.pendingMembers.get(memberId);
    if (timer === undefined) return;
    clearTimeout(timer);
    group.pendingMembers.delete(memberId);
    if (group.is('PreparingRebalance')) this.#tryCompleteJoin(group);
  }

  // ------------------------------------------------------- sessions (DelayedHeartbeat)

  #scheduleHeartbeat(group: GroupMetadata, member: MemberMetadata, timeoutMs: number): void {
    clearTimeout(member.heartbeatTimer);
    member.lastHeartbeatMs = Date.now();
    member.heartbeatTimer = setTimeout(() => this.#onHeartbeatExpired(group, member, timeoutMs), timeoutMs);
    member.heartbeatTimer.unref();
  }

  #onHeartbeatExpired(group: GroupMetadata, member: MemberMetadata, timeoutMs: number): void {
    if (group.members.get(member.memberId) !== member || group.is('Dead')) return;
    // A member parked in JoinGroup or SyncGroup is alive (new members only for their first 5 minutes).
    const keepAlive = member.isAwaitingJoin ? !(member.isNew && timeoutMs >= NEW_MEMBER_JOIN_TIMEOUT_MS) : member.isAwaitingSync;
    if (keepAlive) {
      this.#scheduleHeartbeat(group, member, member.sessionTimeoutMs);
      return;
    }
    this.#logger.info({ group: group.groupId, member: member.memberId, sessionTimeoutMs: member.sessionTimeoutMs }, 'member session expired');
    this.#removeMemberAndUpdateGroup(group, member, 'session expired');
  }

  #removeMemberAndUpdateGroup(group: GroupMetadata, member: MemberMetadata, reason: string): void {
    clearTimeout(member.heartbeatTimer);
    this.#invokeJoin(member, joinError(member.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    this.#invokeSync(member, { throttleTimeMs: 0, errorCode: ErrorCode.UNKNOWN_MEMBER_ID, assignment: Buffer.alloc(0) });
    group.remove(member.memberId);
    switch (group.state) {
      case 'Stable':
      case 'CompletingRebalance':
        this.#maybePrepareRebalance(group, `member ${member.memberId}: ${reason}`);
        break;
      case 'PreparingRebalance':
        this.#tryCompleteJoin(group);
        break;
      default:
        break;
    }
  }

  // ---------------------------------------------------------------- SyncGroup

  handleSyncGroup(req: SyncGroupRequest): Promise<SyncGroupResponse> {
    const fail = (errorCode: number): Promise<SyncGroupResponse> => Promise.resolve({ throttleTimeMs: 0, errorCode, assignment: Buffer.alloc(0) });
    const status = this.#groupStatusError(req.groupId);
    // A sync while loading: the member must rejoin the loaded group (Kafka answers REBALANCE_IN_PROGRESS).
    if (status === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) return fail(ErrorCode.REBALANCE_IN_PROGRESS);
    if (status !== ErrorCode.NONE) return fail(status);
    const group = this.manager.getGroup(req.groupId);
    if (!group) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    if (group.is('Dead')) return fail(ErrorCode.COORDINATOR_NOT_AVAILABLE);
    if (group.isStaticMemberFenced(req.memberId, req.groupInstanceId)) return fail(ErrorCode.FENCED_INSTANCE_ID);
    const member = group.members.get(req.memberId);
    if (!member) return fail(ErrorCode.UNKNOWN_MEMBER_ID);
    if (req.generationId !== group.generationId) return fail(ErrorCode.ILLEGAL_GENERATION);
    switch (group.state) {
      case 'Empty':
        return fail(ErrorCode.UNKNOWN_MEMBER_ID);
      case 'PreparingRebalance':
        return fail(ErrorCode.REBALANCE_IN_PROGRESS);
      case 'Stable':
        this.#scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        return Promise.resolve({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, assignment: member.assignment });
      default:
        break;
    }
    return new Promise((resolve) => {
      if (member.awaitingSync) member.awaitingSync({ throttleTimeMs: 0, errorCode: ErrorCode.REBALANCE_IN_PROGRESS, assignment: Buffer.alloc(0) });
      member.awaitingSync = resolve;
      this.#scheduleHeartbeat(group, member, member.sessionTimeoutMs);
      if (!group.isLeader(member.memberId)) return;
      const assignments = new Map<string, Buffer>();
      for (const a of req.assignments) if (group.members.has(a.memberId)) assignments.set(a.memberId, Buffer.from(a.assignment));
      for (const id of group.members.keys()) if (!assignments.has(id)) assignments.set(id, Buffer.alloc(0));
      const generation = group.generationId;
      void this.manager.storeGroup(group, assignments).then((code) => {
        // The group may have moved on while the record was being replicated.
        if (!group.is('CompletingRebalance') || group.generationId !== generation) return;
        if (code !== ErrorCode.NONE) {
          this.#logger.warn({ group: group.groupId, errorCode: code }, 'failed to write the group assignment');
          this.#resetAndPropagateAssignmentError(group, code);
          this.#maybePrepareRebalance(group, 'group assignment could not be written');
          return;
        }
        for (const m of group.members.values()) m.assignment = assignments.get(m.memberId) ?? Buffer.alloc(0);
        group.transitionTo('Stable');
        this.#logger.info({ group: group.groupId, generation }, 'group is stable');
        for (const m of group.members.values()) {
          if (!m.isAwaitingSync) continue;
          this.#invokeSync(m, { throttleTimeMs: 0, errorCode: ErrorCode.NONE, assignment: m.assignment });
          this.#scheduleHeartbeat(group, m, m.sessionTimeoutMs);
        }
      });
    });
  }

  #resetAndPropagateAssignmentError(group: GroupMetadata, errorCode: number): void {
    for (const m of group.members.values()) {
      m.assignment = Buffer.alloc(0);
      this.#invokeSync(m, { throttleTimeMs: 0, errorCode, assignment: Buffer.alloc(0) });
    }
  }

  // ---------------------------------------------------------------- Heartbeat

  handleHeartbeat(groupId: string, memberId: string, generationId: number, groupInstanceId: string | null = null): number {
    if (!this.#active) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    // While the partition loads, the member keeps its session (it cannot be checked yet).
    if (this.manager.isGroupLoading(groupId)) return ErrorCode.NONE;
    const status = this.#groupStatusError(groupId);
    if (status !== ErrorCode.NONE) return status;
    const group = this.manager.getGroup(groupId);
    if (!group) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (group.isStaticMemberFenced(memberId, groupInstanceId)) return ErrorCode.FENCED_INSTANCE_ID;
    const member = group.members.get(memberId);
    switch (group.state) {
      case 'Dead':
        return ErrorCode.COORDINATOR_NOT_AVAILABLE;
      case 'Empty':
        return ErrorCode.UNKNOWN_MEMBER_ID;
      case 'CompletingRebalance':
        return member ? ErrorCode.REBALANCE_IN_PROGRESS : ErrorCode.UNKNOWN_MEMBER_ID;
      case 'PreparingRebalance':
      case 'Stable':
        if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
        if (generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
        this.#scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        return group.is('Stable') ? ErrorCode.NONE : ErrorCode.REBALANCE_IN_PROGRESS;
    }
  }

  // ---------------------------------------------------------------- LeaveGroup

  handleLeaveGroup(groupId: string, leaving: readonly MemberIdentity[]): { errorCode: number; members: MemberResponse[] } {
    const status = this.#groupStatusError(groupId);
    if (status !== ErrorCode.NONE) return { errorCode: status, members: [] };
    const group = this.manager.getGroup(groupId);
    if (!group) return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID, members: leaving.map((m) => ({ ...m, errorCode: ErrorCode.UNKNOWN_MEMBER_ID })) };
    if (group.is('Dead')) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    // v3+ (KIP-345) name members by member id and/or group.instance.id; each gets its own answer.
    const members = leaving.map((l): MemberResponse => {
      if (l.memberId !== '' && group.isStaticMemberFenced(l.memberId, l.groupInstanceId)) return { ...l, errorCode: ErrorCode.FENCED_INSTANCE_ID };
      if (group.pendingMembers.has(l.memberId) && !group.members.has(l.memberId)) {
        this.#removePendingMember(group, l.memberId);
        return { ...l, errorCode: ErrorCode.NONE };
      }
      const member = group.hasStaticMember(l.groupInstanceId) ? group.members.get(group.staticMembers.get(l.groupInstanceId)!) : group.members.get(l.memberId);
      if (!member) return { ...l, errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
      this.#logger.info({ group: groupId, member: member.memberId, instanceId: member.groupInstanceId }, 'member left the group');
      this.#removeMemberAndUpdateGroup(group, member, 'left the group');
      return { ...l, errorCode: ErrorCode.NONE };
    });
    return { errorCode: ErrorCode.NONE, members };
  }

  // ------------------------------------------------------------- OffsetCommit

  async handleCommitOffsets(req: OffsetCommitRequest): Promise<OffsetCommitResponseTopic[]> {
    const all = (code: number): OffsetCommitResponseTopic[] =>
      req.topics.map((t) => ({ name: t.name, partitions: t.partitions.map((p) => ({ partitionIndex: p.partitionIndex, errorCode: code })) }));
    const status = this.#groupStatusError(req.groupId);
    if (status !== ErrorCode.NONE) return all(status);
    let group = this.manager.getGroup(req.groupId);
    if (!group) {
      if (req.generationId >= 0) return all(ErrorCode.UNKNOWN_MEMBER_ID);
      // A commit outside any generation creates an offsets-only group.
      group = this.manager.addGroup(new GroupMetadata(req.groupId, 'Empty'));
    }
    const code = this.#commitError(group, req);
    if (code !== ErrorCode.NONE) return all(code);
    const now = Date.now();
    const tooLarge = new Set<string>();
    const offsets: TopicPartitionOffset[] = [];
    for (const t of req.topics) {
      for (const p of t.partitions) {
        const metadata = p.committedMetadata ?? '';
        if (Buffer.byteLength(metadata) > this.config.offsetMetadataMaxBytes) {
          tooLarge.add(offsetKey(t.name, p.partitionIndex));
          continue;
        }
        offsets.push({
          topic: t.name,
          partition: p.partitionIndex,
          value: { offset: p.committedOffset, leaderEpoch: p.committedLeaderEpoch, metadata, commitTimestamp: now, expireTimestamp: -1 },
        });
      }
    }
    const stored = await this.manager.storeOffsets(group, offsets);
    return req.topics.map((t) => ({
      name: t.name,
      partitions: t.partitions.map((p) => ({
        partitionIndex: p.partitionIndex,
        errorCode: tooLarge.has(offsetKey(t.name, p.partitionIndex)) ? ErrorCode.OFFSET_METADATA_TOO_LARGE : stored,
      })),
    }));
  }

  #commitError(group: GroupMetadata, req: OffsetCommitRequest): number {
    if (group.is('Dead')) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    if (group.isStaticMemberFenced(req.memberId, req.groupInstanceId)) return ErrorCode.FENCED_INSTANCE_ID;
    if (req.generationId < 0 && group.is('Empty')) return ErrorCode.NONE;
    if (group.is('CompletingRebalance')) return ErrorCode.REBALANCE_IN_PROGRESS;
    const member = group.members.get(req.memberId);
    if (!member) return ErrorCode.UNKNOWN_MEMBER_ID;
    if (req.generationId !== group.generationId) return ErrorCode.ILLEGAL_GENERATION;
    this.#scheduleHeartbeat(group, member, member.sessionTimeoutMs);
    return ErrorCode.NONE;
  }

  // -------------------------------------------------------------- OffsetFetch

  /** Committed offsets; `topics` null = everything the group committed. Unknown ones are -1 with no error. */
  handleFetchOffsets(groupId: string, topics: readonly { name: string; partitionIndexes: readonly number[] }[] | null): { errorCode: number; topics: OffsetFetchResponseTopic[] } {
    const status = this.#groupStatusError(groupId, false);
    const group = status === ErrorCode.NONE ? this.manager.getGroup(groupId) : undefined;
    const entry = (partitionIndex: number, topic: string, errorCode: number) => {
      const o = group?.offsets.get(offsetKey(topic, partitionIndex));
      return {
        partitionIndex,
        committedOffset: errorCode === ErrorCode.NONE && o ? o.value.offset : -1,
        committedLeaderEpoch: errorCode === ErrorCode.NONE && o ? o.value.leaderEpoch : -1,
        metadata: errorCode === ErrorCode.NONE && o ? o.value.metadata : '',
        errorCode,
      };
    };
    if (topics === null) {
      if (status !== ErrorCode.NONE) return { errorCode: status, topics: [] };
      const byTopic = new Map<string, number[]>();
      for (const o of group?.offsets.values() ?? []) byTopic.set(o.topic, [...(byTopic.get(o.topic) ?? []), o.partition]);
      return {
        errorCode: ErrorCode.NONE,
        topics: [...byTopic].map(([name, ps]) => ({ name, partitions: ps.sort((a, b) => a - b).map((p) => entry(p, name, ErrorCode.NONE)) })),
      };
    }
    return { errorCode: status, topics: topics.map((t) => ({ name: t.name, partitions: t.partitionIndexes.map((p) => entry(p, t.name, status)) })) };
  }

  // ------------------------------------------------ DescribeGroups, ListGroups, DeleteGroups

  handleDescribeGroup(groupId: string): DescribedGroup {
    const base = { groupId, protocolType: '', protocolData: '', members: [], authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED };
    const status = this.#groupStatusError(groupId, false);
    if (status !== ErrorCode.NONE) return { ...base, errorCode: status, groupState: '' };
    const group = this.manager.getGroup(groupId);
    if (!group) return { ...base, errorCode: ErrorCode.NONE, groupState: 'Dead' };
    const stable = group.is('Stable');
    return {
      errorCode: ErrorCode.NONE,
      groupId,
      groupState: group.state,
      protocolType: group.protocolType ?? '',
      protocolData: stable ? (group.protocolName ?? '') : '',
      members: [...group.members.values()].map((m) => ({
        memberId: m.memberId,
        groupInstanceId: m.groupInstanceId,
        clientId: m.clientId,
        clientHost: m.clientHost,
        memberMetadata: stable && group.protocolName ? m.metadata(group.protocolName) : Buffer.alloc(0),
        memberAssignment: stable ? m.assignment : Buffer.alloc(0),
      })),
      authorizedOperations: AUTHORIZED_OPERATIONS_OMITTED,
    };
  }

  handleListGroups(): { errorCode: number; groups: ListedGroup[] } {
    if (!this.#active) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, groups: [] };
    const errorCode = this.manager.isLoading() ? ErrorCode.COORDINATOR_LOAD_IN_PROGRESS : ErrorCode.NONE;
    const groups = this.manager.allGroups().filter((g) => !g.is('Dead')).map((g) => ({ groupId: g.groupId, protocolType: g.protocolType ?? '' }));
    return { errorCode, groups };
  }

  async handleDeleteGroups(groupIds: readonly string[]): Promise<{ groupId: string; errorCode: number }[]> {
    const results: { groupId: string; errorCode: number }[] = [];
    for (const groupId of groupIds) {
      const status = this.#groupStatusError(groupId);
      if (status !== ErrorCode.NONE) {
        results.push({ groupId, errorCode: status });
        continue;
      }
      const group = this.manager.getGroup(groupId);
      if (!group || group.is('Dead')) {
        results.push({ groupId, errorCode: ErrorCode.GROUP_ID_NOT_FOUND });
        continue;
      }
      if (!group.is('Empty')) {
        results.push({ groupId, errorCode: ErrorCode.NON_EMPTY_GROUP });
        continue;
      }
      const code = await this.manager.removeGroupRecords(groupId, true, [...group.offsets.values()]);
      if (code === ErrorCode.NONE) {
        group.transitionTo('Dead');
        this.manager.removeGroup(groupId);
      }
      results.push({ groupId, errorCode: code });
    }
    return results;
  }

  // ------------------------------------------------------------- OffsetDelete

  /**
   * OffsetDelete (KIP-496, Kafka's handleDeleteOffsets): an empty group loses the offsets asked for; an active consumer
   * group only those of topics it does not subscribe to (GROUP_SUBSCRIBED_TO_TOPIC for the others); any other active
   * group is NON_EMPTY_GROUP. Deleted offsets are tombstoned in __consumer_offsets, so they stay deleted after a
   * coordinator move; an empty group left without offsets is removed too. A group error leaves `partitions` empty.
   */
  async handleDeleteOffsets(
    groupId: string,
    partitions: readonly { topic: string; partition: number }[],
  ): Promise<{ errorCode: number; partitions: { topic: string; partition: number; errorCode: number }[] }> {
    const status = this.#groupStatusError(groupId);
    if (status !== ErrorCode.NONE) return { errorCode: status, partitions: [] };
    const group = this.manager.getGroup(groupId);
    if (!group || group.is('Dead')) return { errorCode: ErrorCode.GROUP_ID_NOT_FOUND, partitions: [] };
    let eligible: { topic: string; partition: number }[];
    const subscribed: { topic: string; partition: number }[] = [];
    if (group.is('Empty')) {
      eligible = [...partitions];
    } else if (group.isConsumerGroup()) {
      eligible = [];
      for (const tp of partitions) (group.isSubscribedToTopic(tp.topic) ? subscribed : eligible).push(tp);
    } else {
      return { errorCode: ErrorCode.NON_EMPTY_GROUP, partitions: [] };
    }
    let code: number = ErrorCode.NONE;
    if (eligible.length > 0) {
      const doomed = [...new Map(eligible.map((tp) => [offsetKey(tp.topic, tp.partition), tp])).entries()].filter(([k]) => group.offsets.has(k));
      const keys = new Set(doomed.map(([k]) => k));
      const removeGroup = group.is('Empty') && [...group.offsets.keys()].every((k) => keys.has(k));
      code = await this.manager.removeGroupRecords(groupId, removeGroup, doomed.map(([, tp]) => tp));
      if (code === ErrorCode.NONE) {
        for (const k of keys) group.offsets.delete(k);
        if (removeGroup && group.is('Empty') && group.members.size === 0 && group.offsets.size === 0) {
          group.transitionTo('Dead');
          this.manager.removeGroup(groupId);
        }
        this.#logger.info({ group: groupId, offsets: doomed.length, groupRemoved: removeGroup }, 'deleted committed offsets');
      }
    }
    return {
      errorCode: ErrorCode.NONE,
      partitions: [
        ...eligible.map((tp) => ({ ...tp, errorCode: code })),
        ...subscribed.map((tp) => ({ ...tp, errorCode: ErrorCode.GROUP_SUBSCRIBED_TO_TOPIC })),
      ],
    };
  }

  /** Offsets of empty groups older than offsets.retention.minutes are removed; a group left with nothing goes too. */
  async #expireOffsets(): Promise<void> {
    const now = Date.now();
    for (const group of this.manager.allGroups()) {
      if (!group.is('Empty')) continue;
      const expired = [...group.offsets.values()].filter((o) => now - o.value.commitTimestamp > this.config.offsetsRetentionMs);
      if (expired.length === 0) continue;
      const removeGroup = expired.length === group.offsets.size;
      const code = await this.manager.removeGroupRecords(group.groupId, removeGroup, expired);
      if (code !== ErrorCode.NONE) continue;
      for (const o of expired) group.offsets.delete(offsetKey(o.topic, o.partition));
      if (removeGroup && group.is('Empty') && group.members.size === 0) {
        group.transitionTo('Dead');
        this.manager.removeGroup(group.groupId);
      }
      this.#logger.info({ group: group.groupId, offsets: expired.length }, 'expired committed offsets');
    }
  }
}
