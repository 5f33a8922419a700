import { ErrorCode, type Logger } from '@gregor/common';
import type { JoinGroupResponse, SyncGroupResponse } from '@gregor/protocol';
import { NEW_MEMBER_JOIN_TIMEOUT_MS, type GroupCoordinatorConfig } from './coordinator-config.js';
import type { GroupCoordinatorDeps } from './coordinator-deps.js';
import type { GroupMetadata } from './group-metadata.js';
import type { GroupMetadataManager } from './group-metadata-manager.js';
import type { MemberMetadata } from './member-metadata.js';

export function joinError(memberId: string, errorCode: number): JoinGroupResponse {
  return { throttleTimeMs: 0, errorCode, generationId: -1, protocolName: '', leader: '', memberId, members: [] };
}

/**
 * A group's rebalance (Kafka 2.4's GroupCoordinator prepareRebalance/onCompleteJoin with DelayedJoin,
 * InitialDelayedJoin and DelayedHeartbeat): the move to PreparingRebalance, the delayed join (with the
 * initial delay for an empty group) that completes it, and each member's session deadline. Both timers are
 * owned here; the requests that drive them are in GroupMembership.
 */
export class GroupRebalance {
  readonly #config: GroupCoordinatorConfig;
  readonly #manager: GroupMetadataManager;
  readonly #logger: Logger;

  constructor(deps: GroupCoordinatorDeps) {
    this.#config = deps.config;
    this.#manager = deps.manager;
    this.#logger = deps.logger;
  }

  onGroupLoaded(group: GroupMetadata): void {
    for (const m of group.members.values()) this.scheduleHeartbeat(group, m, m.sessionTimeoutMs);
  }

  onGroupUnloaded(group: GroupMetadata): void {
    const previous = group.state;
    group.state = 'Dead';
    clearTimeout(group.joinTimer);
    for (const t of group.pendingMembers.values()) clearTimeout(t);
    group.pendingMembers.clear();
    for (const m of group.members.values()) {
      clearTimeout(m.heartbeatTimer);
      if (previous === 'PreparingRebalance') this.invokeJoin(m, joinError(m.memberId, ErrorCode.NOT_COORDINATOR));
      if (previous === 'CompletingRebalance') this.invokeSync(m, { throttleTimeMs: 0, errorCode: ErrorCode.NOT_COORDINATOR, assignment: Buffer.alloc(0) });
    }
  }

  joinResult(group: GroupMetadata, member: MemberMetadata): JoinGroupResponse {
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

  maybePrepareRebalance(group: GroupMetadata, reason: string): void {
    if (group.canRebalance()) this.#prepareRebalance(group, reason);
  }

  #prepareRebalance(group: GroupMetadata, reason: string): void {
    if (group.is('CompletingRebalance')) this.resetAndPropagateAssignmentError(group, ErrorCode.REBALANCE_IN_PROGRESS);
    clearTimeout(group.joinTimer);
    const initial = group.is('Empty');
    group.transitionTo('PreparingRebalance');
    this.#logger.info({ group: group.groupId, generation: group.generationId, reason }, 'preparing to rebalance');
    if (initial) {
      const delay = this.#config.groupInitialRebalanceDelayMs;
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
        const next = Math.min(this.#config.groupInitialRebalanceDelayMs, group.initialDelayRemainingMs);
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
  tryCompleteJoin(group: GroupMetadata): void {
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
      void this.#manager.storeGroup(group, new Map()).then((code) => {
        if (code !== ErrorCode.NONE) this.#logger.warn({ group: group.groupId, errorCode: code }, 'failed to write the empty group');
      });
      return;
    }
    this.#logger.info({ group: group.groupId, generation: group.generationId, protocol: group.protocolName, members: group.members.size }, 'rebalance completed joins');
    for (const m of group.members.values()) {
      const result = this.joinResult(group, m);
      m.isNew = false;
      this.invokeJoin(m, result);
      this.scheduleHeartbeat(group, m, m.sessionTimeoutMs);
    }
  }

  invokeJoin(member: MemberMetadata, response: JoinGroupResponse): void {
    const respond = member.awaitingJoin;
    member.awaitingJoin = null;
    respond?.(response);
  }

  invokeSync(member: MemberMetadata, response: SyncGroupResponse): void {
    const respond = member.awaitingSync;
    member.awaitingSync = null;
    respond?.(response);
  }

  removePendingMember(group: GroupMetadata, memberId: string): void {
    const timer = group.pendingMembers.get(memberId);
    if (timer === undefined) return;
    clearTimeout(timer);
    group.pendingMembers.delete(memberId);
    if (group.is('PreparingRebalance')) this.tryCompleteJoin(group);
  }

  // ------------------------------------------------------- sessions (DelayedHeartbeat)

  scheduleHeartbeat(group: GroupMetadata, member: MemberMetadata, timeoutMs: number): void {
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
      this.scheduleHeartbeat(group, member, member.sessionTimeoutMs);
      return;
    }
    this.#logger.info({ group: group.groupId, member: member.memberId, sessionTimeoutMs: member.sessionTimeoutMs }, 'member session expired');
    this.removeMemberAndUpdateGroup(group, member, 'session expired');
  }

  removeMemberAndUpdateGroup(group: GroupMetadata, member: MemberMetadata, reason: string): void {
    clearTimeout(member.heartbeatTimer);
    this.invokeJoin(member, joinError(member.memberId, ErrorCode.UNKNOWN_MEMBER_ID));
    this.invokeSync(member, { throttleTimeMs: 0, errorCode: ErrorCode.UNKNOWN_MEMBER_ID, assignment: Buffer.alloc(0) });
    group.remove(member.memberId);
    switch (group.state) {
      case 'Stable':
      case 'CompletingRebalance':
        this.maybePrepareRebalance(group, `member ${member.memberId}: ${reason}`);
        break;
      case 'PreparingRebalance':
        this.tryCompleteJoin(group);
        break;
      default:
        break;
    }
  }

  resetAndPropagateAssignmentError(group: GroupMetadata, errorCode: number): void {
    for (const m of group.members.values()) {
      m.assignment = Buffer.alloc(0);
      this.invokeSync(m, { throttleTimeMs: 0, errorCode, assignment: Buffer.alloc(0) });
    }
  }
}
