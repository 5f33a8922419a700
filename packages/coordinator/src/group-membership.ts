import { randomUUID } from 'node:crypto';
import { ErrorCode, type Logger } from '@gregor/common';
import type { JoinGroupRequest, JoinGroupResponse, MemberIdentity, MemberResponse, SyncGroupRequest, SyncGroupResponse } from '@gregor/protocol';
import { NEW_MEMBER_JOIN_TIMEOUT_MS, type GroupCoordinatorConfig } from './coordinator-config.js';
import type { GroupCoordinatorDeps } from './coordinator-deps.js';
import { GroupMetadata } from './group-metadata.js';
import type { GroupMetadataManager } from './group-metadata-manager.js';
import { joinError, type GroupRebalance } from './group-rebalance.js';
import { MemberMetadata } from './member-metadata.js';

export interface JoinContext {
  clientId: string;
  clientHost: string;
  /** JoinGroup v4+ without a group instance id gets MEMBER_ID_REQUIRED first. */
  requireKnownMemberId: boolean;
}

/**
 * The membership requests (Kafka 2.4's handleJoinGroup, handleSyncGroup, handleHeartbeat, handleLeaveGroup):
 * members joining (dynamic, KIP-394 member id first, KIP-345 static), the leader's assignment written to
 * __consumer_offsets and handed out, heartbeats, and members leaving. Rebalances they trigger run in GroupRebalance.
 */
export class GroupMembership {
  readonly #d: GroupCoordinatorDeps;
  readonly #config: GroupCoordinatorConfig;
  readonly #manager: GroupMetadataManager;
  readonly #logger: Logger;
  readonly #rebalance: GroupRebalance;

  constructor(deps: GroupCoordinatorDeps, rebalance: GroupRebalance) {
    this.#d = deps;
    this.#config = deps.config;
    this.#manager = deps.manager;
    this.#logger = deps.logger;
    this.#rebalance = rebalance;
  }

  // ---------------------------------------------------------------- JoinGroup

  handleJoinGroup(req: JoinGroupRequest, ctx: JoinContext): Promise<JoinGroupResponse> {
    const status = this.#d.groupStatusError(req.groupId);
    if (status !== ErrorCode.NONE) return Promise.resolve(joinError(req.memberId, status));
    if (req.sessionTimeoutMs < this.#config.groupMinSessionTimeoutMs || req.sessionTimeoutMs > this.#config.groupMaxSessionTimeoutMs) {
      return Promise.resolve(joinError(req.memberId, ErrorCode.INVALID_SESSION_TIMEOUT));
    }
    const isUnknownMember = req.memberId === '';
    let group = this.#manager.getGroup(req.groupId);
    if (!group) {
      if (!isUnknownMember) return Promise.resolve(joinError(req.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
      group = this.#manager.addGroup(new GroupMetadata(req.groupId, 'Empty'));
    }
    const g = group;
    return new Promise((resolve) => {
      if (isUnknownMember) this.#doUnknownJoin(g, req, ctx, resolve);
      else this.#doCurrentMemberJoin(g, req, ctx, resolve);
      // A join can be what the delayed join was waiting for.
      if (g.is('PreparingRebalance')) this.#rebalance.tryCompleteJoin(g);
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
      const timer = setTimeout(() => this.#rebalance.removePendingMember(group, memberId), req.sessionTimeoutMs);
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
    this.#rebalance.invokeJoin(old, joinError(oldMemberId, ErrorCode.FENCED_INSTANCE_ID));
    this.#rebalance.invokeSync(old, { throttleTimeMs: 0, errorCode: ErrorCode.FENCED_INSTANCE_ID, assignment: Buffer.alloc(0) });
    const member = group.replaceStaticMember(oldMemberId, newMemberId);
    this.#rebalance.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
    member.supportedProtocols = req.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) }));
    member.awaitingJoin = respond;
    if (group.is('Stable') || group.is('CompletingRebalance')) {
      this.#rebalance.invokeJoin(member, {
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
          return respond(this.#rebalance.joinResult(group, member));
        }
        return this.#updateMemberAndRebalance(group, member, req, respond);
      case 'Stable':
        if (group.isLeader(memberId) || !member.matches(req.protocols)) return this.#updateMemberAndRebalance(group, member, req, respond);
        return respond(this.#rebalance.joinResult(group, member));
      default:
        return respond(joinError(memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    }
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
    this.#rebalance.scheduleHeartbeat(group, member, NEW_MEMBER_JOIN_TIMEOUT_MS);
    this.#rebalance.maybePrepareRebalance(group, `member ${memberId} joined`);
  }

  #updateMemberAndRebalance(group: GroupMetadata, member: MemberMetadata, req: JoinGroupRequest, respond: (r: JoinGroupResponse) => void): void {
    member.supportedProtocols = req.protocols.map((p) => ({ name: p.name, metadata: Buffer.from(p.metadata) }));
    member.rebalanceTimeoutMs = req.rebalanceTimeoutMs;
    member.sessionTimeoutMs = req.sessionTimeoutMs;
    if (member.awaitingJoin) member.awaitingJoin(joinError(member.memberId, ErrorCode.REBALANCE_IN_PROGRESS));
    member.awaitingJoin = respond;
    this.#rebalance.maybePrepareRebalance(group, `member ${member.memberId} rejoined`);
  }

  // ---------------------------------------------------------------- SyncGroup

  handleSyncGroup(req: SyncGroupRequest): Promise<SyncGroupResponse> {
    const fail = (errorCode: number): Promise<SyncGroupResponse> => Promise.resolve({ throttleTimeMs: 0, errorCode, assignment: Buffer.alloc(0) });
    const status = this.#d.groupStatusError(req.groupId);
    // A sync while loading: the member must rejoin the loaded group (Kafka answers REBALANCE_IN_PROGRESS).
    if (status === ErrorCode.COORDINATOR_LOAD_IN_PROGRESS) return fail(ErrorCode.REBALANCE_IN_PROGRESS);
    if (status !== ErrorCode.NONE) return fail(status);
    const group = this.#manager.getGroup(req.groupId);
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
        this.#rebalance.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        return Promise.resolve({ throttleTimeMs: 0, errorCode: ErrorCode.NONE, assignment: member.assignment });
      default:
        break;
    }
    return new Promise((resolve) => {
      if (member.awaitingSync) member.awaitingSync({ throttleTimeMs: 0, errorCode: ErrorCode.REBALANCE_IN_PROGRESS, assignment: Buffer.alloc(0) });
      member.awaitingSync = resolve;
      this.#rebalance.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
      if (!group.isLeader(member.memberId)) return;
      const assignments = new Map<string, Buffer>();
      for (const a of req.assignments) if (group.members.has(a.memberId)) assignments.set(a.memberId, Buffer.from(a.assignment));
      for (const id of group.members.keys()) if (!assignments.has(id)) assignments.set(id, Buffer.alloc(0));
      const generation = group.generationId;
      void this.#manager.storeGroup(group, assignments).then((code) => {
        // The group may have moved on while the record was being replicated.
        if (!group.is('CompletingRebalance') || group.generationId !== generation) return;
        if (code !== ErrorCode.NONE) {
          this.#logger.warn({ group: group.groupId, errorCode: code }, 'failed to write the group assignment');
          this.#rebalance.resetAndPropagateAssignmentError(group, code);
          this.#rebalance.maybePrepareRebalance(group, 'group assignment could not be written');
          return;
        }
        for (const m of group.members.values()) m.assignment = assignments.get(m.memberId) ?? Buffer.alloc(0);
        group.transitionTo('Stable');
        this.#logger.info({ group: group.groupId, generation }, 'group is stable');
        for (const m of group.members.values()) {
          if (!m.isAwaitingSync) continue;
          this.#rebalance.invokeSync(m, { throttleTimeMs: 0, errorCode: ErrorCode.NONE, assignment: m.assignment });
          this.#rebalance.scheduleHeartbeat(group, m, m.sessionTimeoutMs);
        }
      });
    });
  }

  // ---------------------------------------------------------------- Heartbeat

  handleHeartbeat(groupId: string, memberId: string, generationId: number, groupInstanceId: string | null = null): number {
    if (!this.#d.isActive()) return ErrorCode.COORDINATOR_NOT_AVAILABLE;
    // While the partition loads, the member keeps its session (it cannot be checked yet).
    if (this.#manager.isGroupLoading(groupId)) return ErrorCode.NONE;
    const status = this.#d.groupStatusError(groupId);
    if (status !== ErrorCode.NONE) return status;
    const group = this.#manager.getGroup(groupId);
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
        this.#rebalance.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
        return group.is('Stable') ? ErrorCode.NONE : ErrorCode.REBALANCE_IN_PROGRESS;
    }
  }

  // ---------------------------------------------------------------- LeaveGroup

  handleLeaveGroup(groupId: string, leaving: readonly MemberIdentity[]): { errorCode: number; members: MemberResponse[] } {
    const status = this.#d.groupStatusError(groupId);
    if (status !== ErrorCode.NONE) return { errorCode: status, members: [] };
    const group = this.#manager.getGroup(groupId);
    if (!group) return { errorCode: ErrorCode.UNKNOWN_MEMBER_ID, members: leaving.map((m) => ({ ...m, errorCode: ErrorCode.UNKNOWN_MEMBER_ID })) };
    if (group.is('Dead')) return { errorCode: ErrorCode.COORDINATOR_NOT_AVAILABLE, members: [] };
    // v3+ (KIP-345) name members by member id and/or group.instance.id; each gets its own answer.
    const members = leaving.map((l): MemberResponse => {
      if (l.memberId !== '' && group.isStaticMemberFenced(l.memberId, l.groupInstanceId)) return { ...l, errorCode: ErrorCode.FENCED_INSTANCE_ID };
      if (group.pendingMembers.has(l.memberId) && !group.members.has(l.memberId)) {
        this.#rebalance.removePendingMember(group, l.memberId);
        return { ...l, errorCode: ErrorCode.NONE };
      }
      const member = group.hasStaticMember(l.groupInstanceId) ? group.members.get(group.staticMembers.get(l.groupInstanceId)!) : group.members.get(l.memberId);
      if (!member) return { ...l, errorCode: ErrorCode.UNKNOWN_MEMBER_ID };
      this.#logger.info({ group: groupId, member: member.memberId, instanceId: member.groupInstanceId }, 'member left the group');
      this.#rebalance.removeMemberAndUpdateGroup(group, member, 'left the group');
      return { ...l, errorCode: ErrorCode.NONE };
    });
    return { errorCode: ErrorCode.NONE, members };
  }
}
