import { ErrorCode, type Logger } from '@gregor/common';
import { ControllerMovedError } from '@gregor/zookeeper';
import { BrokerChangeHandler } from './broker-change-handler.js';
import { ControllerChannelManager, type ControllerChannel, type ControllerChannelOptions } from './controller-channel-manager.js';
import type { ControllerConfig, ControllerDeps, ControllerOptions } from './controller-config.js';
import { ControllerContext, type TopicPartition } from './controller-context.js';
import { loadControllerContext, resumeControllerWork } from './controller-failover.js';
import { ControllerEventManager } from './controller-event-manager.js';
import { refuseEvent, type AlterReassignmentsOutcome, type ControllerEvent, type LeaderElectionOutcome, type ListReassignmentsOutcome } from './controller-events.js';
import { ControllerRequestBatch } from './controller-request-batch.js';
import { PartitionReassignment, type ReassignmentRequest } from './partition-reassignment.js';
import { PartitionStateMachine } from './partition-state-machine.js';
import { ReplicaLeaderElection } from './replica-leader-election.js';
import { TopicChangeHandler } from './topic-change-handler.js';
import { TopicDeletionManager } from './topic-deletion-manager.js';
import type { ControllerZk, ElectionOutcome } from './controller-zk.js';
import { ControllerSessionLostError, retryingControllerZk, ZkCallTimer } from './zk-retry.js';

export type { ControllerConfig, ControllerOptions } from './controller-config.js';

/** After its failover failed, a broker stands for election again only after this long (others may go first). */
const FAILED_FAILOVER_BACKOFF_MS = 1000;
/** Events that take at least this long are logged with where their time went (ZooKeeper calls vs the rest). */
const SLOW_EVENT_MS = 100;

/**
 * The controller (Kafka's KafkaController in its 1.1+ event-queue form). Every broker runs one as a
 * candidate; the one holding the ephemeral /controller znode acts: it assigns leaders from the ISR,
 * writes partition state znodes fenced by the controller epoch, and tells brokers through
 * LeaderAndIsr / UpdateMetadata / StopReplica.
 */
export class KafkaController {
  readonly #cfg: ControllerConfig;
  readonly #zk: ControllerZk;
  readonly #log: Logger;
  readonly #events: ControllerEventManager<ControllerEvent>;
  readonly ctx = new ControllerContext();
  readonly #newChannel: (opts: ControllerChannelOptions) => ControllerChannel;
  #channel: ControllerChannel | null = null;
  #activeControllerId: number | null = null;
  /** Acting as controller: set only once failover has loaded the context and told the brokers. */
  #active = false;
  /** Elected, failover loading in progress: not acting yet. */
  #loading = false;
  #stopped = false;
  /** After a failed failover this broker lets others take /controller first, for a while. */
  #electAgainAt = 0;
  #electAgainTimer: NodeJS.Timeout | undefined;
  /** Aborted when the ZooKeeper session is lost or the controller stops: ZooKeeper calls stop retrying. */
  #sessionAbort = new AbortController();
  readonly #partitions: PartitionStateMachine;
  readonly #reassignment: PartitionReassignment;
  readonly #deletion: TopicDeletionManager;
  readonly #elections: ReplicaLeaderElection;
  readonly #topicChanges: TopicChangeHandler;
  readonly #brokerChanges: BrokerChangeHandler;
  readonly #zkTimer = new ZkCallTimer();
  readonly #deps: ControllerDeps;
  /** Called when this broker becomes or stops being the controller (metrics, logs). */
  onActiveChange: (active: boolean) => void = () => {};

  constructor(cfg: ControllerConfig, zk: ControllerZk, logger: Logger, opts: ControllerOptions = {}) {
    this.#cfg = cfg;
    this.#log = logger.child({ component: 'controller' });
    this.#zk = retryingControllerZk(zk, {
      signal: () => this.#sessionAbort.signal,
      log: this.#log,
      baseBackoffMs: opts.zkRetryBackoffMs?.base,
      maxBackoffMs: opts.zkRetryBackoffMs?.max,
      timer: this.#zkTimer,
    });
    this.#newChannel = opts.channel ?? ((o) => new ControllerChannelManager(o));
    this.#events = new ControllerEventManager((e) => this.#process(e), this.#log, (e) => refuseEvent(e));
    const deps: ControllerDeps = {
      cfg,
      ctx: this.ctx,
      zk: this.#zk,
      log: this.#log,
      channel: () => this.#channel!,
      newBatch: () => this.#newBatch(),
      enqueue: (event) => this.#enqueue(event),
      stopped: () => this.#stopped,
    };
    this.#deps = deps;
    this.#partitions = new PartitionStateMachine(deps);
    this.#reassignment = new PartitionReassignment({
      ...deps,
      writeState: (tp, state, v) => this.#partitions.writeState(tp, state, v),
    });
    this.#deletion = new TopicDeletionManager(deps);
    this.#elections = new ReplicaLeaderElection(deps, this.#partitions);
    this.#topicChanges = new TopicChangeHandler(deps, this.#partitions, this.#reassignment);
    this.#brokerChanges = new BrokerChangeHandler(deps, this.#partitions, this.#reassignment, this.#deletion);
  }

  /** Reassignments in progress (for the admin API). */
  reassignmentsInProgress(): { topic: string; partition: number; original: number[]; target: number[] }[] {
    return this.#reassignment.inProgress();
  }

  get isActive(): boolean {
    return this.#active;
  }

  get activeControllerId(): number | null {
    return this.#activeControllerId;
  }

  get epoch(): number {
    return this.ctx.epoch;
  }

  get eventTimings(): ReadonlyMap<string, { count: number; totalMs: number }> {
    return this.#events.timings;
  }

  startup(): void {
    this.#events.start();
    this.#events.put({ type: 'Startup' });
  }

  /** A new ZooKeeper session (after expiry): everything ephemeral is gone, elect again. */
  onNewZkSession(): void {
    this.#events.put({ type: 'Reelect' });
  }

  /** The ZooKeeper session is lost: stop acting at once, whatever is queued. */
  onZkSessionLost(): void {
    // Calls being retried belong to the lost session: the event in progress gives up.
    this.#sessionAbort.abort();
    this.#sessionAbort = new AbortController();
    if (this.#active || this.#loading) {
      this.#log.warn('ZooKeeper session lost: resigning as controller');
      this.#events.clear();
      this.#events.put({ type: 'Resign' });
    }
  }

  /** `brokerEpoch` -1 (v0/v1 requests) skips the stale-epoch check. */
  controlledShutdown(brokerId: number, brokerEpoch = -1n): Promise<{ errorCode: number; remaining: TopicPartition[] }> {
    return new Promise((respond) => {
      if (!this.#active) return respond({ errorCode: ErrorCode.NOT_CONTROLLER, remaining: [] });
      this.#events.put({ type: 'ControlledShutdown', brokerId, brokerEpoch, respond });
    });
  }

  preferredReplicaElection(partitions: TopicPartition[] | null): Promise<{ elected: TopicPartition[]; failed: TopicPartition[] }> {
    return new Promise((respond) => {
      if (!this.#active) return respond({ elected: [], failed: partitions ?? [] });
      this.#events.put({ type: 'PreferredReplicaElection', partitions, respond });
    });
  }

  /**
   * ElectLeaders (KIP-460): PREFERRED (0) or UNCLEAN (1) election for each partition, as a controller
   * event. A broker that is not the controller answers NOT_CONTROLLER for every partition (Kafka 2.4).
   */
  electLeaders(electionType: number, partitions: TopicPartition[]): Promise<LeaderElectionOutcome[]> {
    return new Promise((respond) => this.#events.put({ type: 'ElectLeaders', electionType, partitions, respond }));
  }

  /** AlterPartitionReassignments (KIP-455); null replicas cancel. Top-level NOT_CONTROLLER elsewhere. */
  alterPartitionReassignments(reassignments: ReassignmentRequest[]): Promise<AlterReassignmentsOutcome> {
    return new Promise((respond) => this.#events.put({ type: 'AlterPartitionReassignments', reassignments, respond }));
  }

  /** ListPartitionReassignments (KIP-455): the named partitions (null = all) being reassigned. */
  listPartitionReassignments(partitions: TopicPartition[] | null): Promise<ListReassignmentsOutcome> {
    return new Promise((respond) => this.#events.put({ type: 'ListPartitionReassignments', partitions, respond }));
  }

  /** unclean.leader.election.enable was turned on at run time: offline partitions may now get a leader (Kafka's UncleanLeaderElectionEnable). */
  enableDefaultUncleanLeaderElection(): void {
    this.#events.put({ type: 'UncleanLeaderElectionEnable' });
  }

  async shutdown(): Promise<void> {
    this.#stopped = true;
    this.#sessionAbort.abort(); // an event retrying against an unreachable ZooKeeper must not hold the shutdown
    clearTimeout(this.#electAgainTimer);
    await this.#events.stop();
    await this.#resign();
  }

  #enqueue = (event: ControllerEvent) => () => {
    if (!this.#stopped) this.#events.put(event);
  };

  /** Where a slow event's time went: ZooKeeper calls by method, and the rest (elections, building requests). */
  onSlowEvent: (profile: { event: string; ms: number; zkMs: number; zkCalls: number; zk: Record<string, { calls: number; ms: number }> }) => void = (p) =>
    this.#log.info(p, 'controller event took long');

  async #process(e: ControllerEvent): Promise<void> {
    const started = performance.now();
    this.#zkTimer.take();
    try {
      await this.#handle(e);
    } finally {
      const ms = performance.now() - started;
      const zk = this.#zkTimer.take();
      if (ms >= SLOW_EVENT_MS) this.onSlowEvent({ event: e.type, ms: Math.round(ms), zkMs: zk.totalMs, zkCalls: zk.calls, zk: zk.byMethod });
    }
  }

  async #handle(e: ControllerEvent): Promise<void> {
    try {
      await this.#processEvent(e);
    } catch (err) {
      // A request waiting on this event still gets an answer (each handler responds last, so it has not yet).
      if (err instanceof ControllerMovedError) {
        refuseEvent(e);
        // Our writes are fenced: another broker holds a newer controller epoch.
        this.#log.warn({ event: e.type, err: err.message }, 'controller moved: resigning');
        await this.#resign();
        await this.#maybeElect();
        return;
      }
      if (err instanceof ControllerSessionLostError) {
        // The new session (onNewZkSession) elects and reloads everything; this event's work is redone there.
        refuseEvent(e);
        this.#log.warn({ event: e.type, err: err.message }, 'ZooKeeper session lost while handling an event');
        return;
      }
      refuseEvent(e, ErrorCode.UNKNOWN_SERVER_ERROR);
      throw err;
    }
  }

  async #processEvent(e: ControllerEvent): Promise<void> {
    switch (e.type) {
      case 'Startup':
      case 'ControllerChange':
        return this.#maybeElect();
      case 'Reelect':
        await this.#resign();
        return this.#maybeElect();
      case 'Resign':
        return this.#resign();
    }
    if (!this.#active) return refuseEvent(e);
    switch (e.type) {
      case 'BrokerChange':
        return this.#brokerChanges.onBrokerChange();
      case 'TopicChange':
        return this.#topicChanges.onTopicChange();
      case 'PartitionModifications':
        return this.#topicChanges.onPartitionModifications(e.topic);
      case 'TopicDeletion':
        return this.#deletion.onTopicDeletion();
      case 'TopicDeletionStopReplicaResult':
        return this.#deletion.onStopReplicaDeleteResult(e.topic, e.partition, e.brokerId, e.errorCode);
      case 'IsrChangeNotification':
        return this.#topicChanges.onIsrChangeNotification();
      case 'ControlledShutdown':
        return e.respond(await this.#brokerChanges.onControlledShutdown(e.brokerId, e.brokerEpoch));
      case 'PreferredReplicaElection': {
        const result = await this.#elections.onPreferredReplicaElection(e.partitions ?? this.ctx.allPartitions());
        e.respond?.(result);
        return;
      }
      case 'ElectLeaders':
        return e.respond(await this.#elections.onElectLeaders(e.electionType, e.partitions));
      case 'AlterPartitionReassignments':
        return e.respond(await this.#reassignment.onAlterPartitionReassignments(e.reassignments));
      case 'ListPartitionReassignments':
        return e.respond({ errorCode: ErrorCode.NONE, partitions: this.#reassignment.list(e.partitions) });
      case 'AutoPreferredReplicaLeaderElection':
        return this.#elections.checkAndTriggerAutoLeaderRebalance();
      case 'PreferredReplicaElectionZnode':
        return this.#elections.onPreferredReplicaElectionZnode();
      case 'PartitionReassignment':
        await this.#reassignment.onPartitionReassignmentZnode();
        return;
      case 'UncleanLeaderElectionEnable':
      case 'OfflinePartitionElectionRetry': {
        const batch = this.#newBatch();
        await this.#partitions.electLeadersForNewOrOfflinePartitions(this.ctx.allPartitions(), batch);
        batch.send();
        return;
      }
      case 'LogDirEventNotification':
        return this.#brokerChanges.onLogDirEventNotification();
      case 'LeaderAndIsrResponseReceived':
        return this.#brokerChanges.onLeaderAndIsrResponse(e.brokerId, e.partitionErrors);
    }
  }

  // ---- controller election, failover, resignation ----------------------------------------

  async #maybeElect(): Promise<void> {
    const current = await this.#zk.getControllerId(this.#enqueue({ type: 'ControllerChange' }));
    if (current !== null) {
      this.#activeControllerId = current;
      if (current !== this.#cfg.brokerId) {
        if (this.#active) await this.#resign();
        return;
      }
      if (this.#active) return;
      // /controller names this broker but it is not acting: an election whose answer was lost (a timeout) may
      // have created it. It is ours only if this session owns the znode; a previous session's vanishes with it.
      const owned = await this.#zk.describeController(this.#cfg.brokerId);
      if (!owned.elected) return;
      this.#log.warn({ epoch: owned.epoch }, '/controller is ours although the election got no answer: acting as controller');
      return this.#becomeController(owned);
    }
    const wait = this.#electAgainAt - Date.now();
    if (wait > 0) {
      clearTimeout(this.#electAgainTimer);
      this.#electAgainTimer = setTimeout(this.#enqueue({ type: 'ControllerChange' }), wait);
      this.#electAgainTimer.unref();
      return;
    }
    const outcome = await this.#zk.tryElectController(this.#cfg.brokerId);
    this.#activeControllerId = outcome.controllerId;
    // Re-arm the watch: the election itself changed /controller.
    await this.#zk.getControllerId(this.#enqueue({ type: 'ControllerChange' }));
    if (!outcome.elected) {
      if (this.#active) await this.#resign();
      return;
    }
    await this.#becomeController(outcome);
  }

  async #becomeController(outcome: ElectionOutcome): Promise<void> {
    this.#activeControllerId = this.#cfg.brokerId;
    this.ctx.epoch = outcome.epoch;
    this.ctx.epochZkVersion = outcome.epochZkVersion;
    this.#log.info({ epoch: outcome.epoch }, 'elected controller');
    try {
      await this.#onControllerFailover();
    } catch (err) {
      // A half-loaded controller must not act.
      await this.#resign();
      if (err instanceof ControllerMovedError || err instanceof ControllerSessionLostError) throw err;
      // Kafka's triggerControllerMove: free /controller so another broker (or this one, afresh) takes over.
      this.#log.error({ err }, 'controller failover failed: resigning and deleting /controller');
      this.#electAgainAt = Date.now() + FAILED_FAILOVER_BACKOFF_MS;
      await this.#zk.resignController(this.#cfg.brokerId);
    }
  }

  async #resign(): Promise<void> {
    this.#elections.stopAutoRebalance();
    this.#partitions.cancelElectionRetry();
    this.#loading = false;
    const wasActive = this.#active;
    this.#active = false;
    const channel = this.#channel;
    this.#channel = null;
    await channel?.shutdown();
    this.ctx.reset();
    if (wasActive) {
      this.#log.info('resigned as controller');
      this.onActiveChange(false);
    }
  }

  #newBatch(): ControllerRequestBatch {
    return new ControllerRequestBatch(
      this.ctx,
      this.#channel!,
      this.#cfg.brokerId,
      this.#log,
      (topic, partition, brokerId, errorCode) => this.#events.put({ type: 'TopicDeletionStopReplicaResult', topic, partition, brokerId, errorCode }),
      (brokerId, partitionErrors) => {
        // Only answers that can change which replicas are offline (KIP-112) become events.
        if (partitionErrors.some((e) => e.errorCode === ErrorCode.KAFKA_STORAGE_ERROR) || this.ctx.replicasOnOfflineDirs.has(brokerId)) {
          this.#events.put({ type: 'LeaderAndIsrResponseReceived', brokerId, partitionErrors });
        }
      },
      this.#cfg.interBrokerListenerName,
    );
  }

  async #onControllerFailover(): Promise<void> {
    this.#loading = true;
    this.#channel = this.#newChannel({
      controllerId: this.#cfg.brokerId,
      listenerName: this.#cfg.interBrokerListenerName,
      requestTimeoutMs: this.#cfg.controllerSocketTimeoutMs,
      ...(this.#cfg.interBrokerSecurity ? { security: this.#cfg.interBrokerSecurity } : {}),
      logger: this.#log,
    });
    await loadControllerContext(this.#deps, this.#brokerChanges, this.#topicChanges, this.#partitions);
    // Loaded and the brokers told: only now does this broker act (and say so) as controller.
    this.#loading = false;
    this.#active = true;
    this.onActiveChange(true);
    await resumeControllerWork(this.#deps, this.#deletion, this.#reassignment, this.#elections);
  }
}
