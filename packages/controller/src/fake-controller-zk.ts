import { ControllerMovedError, ZkError, ZkErrorCode, type TopicAssignment } from '@gregor/zookeeper';
import type { ControllerBrokerInfo, TopicPartition } from './controller-context.js';
import { tpKey } from './controller-context.js';
import type { ControllerZk, ElectionOutcome, PartitionStateData } from './controller-zk.js';

type Method = keyof ControllerZk;

interface Fault {
  method: Method;
  match: (args: unknown[]) => boolean;
  error: () => Error;
  /** The operation takes effect before the error is thrown (an answer lost on the way back). */
  applied: boolean;
  remaining: number;
}

interface Hold {
  entered: () => void;
  released: Promise<void>;
}

/** ZooKeeper answers as KafkaZkControllerStore tags them. */
export const zkErrors = {
  connectionLoss: (path = '/') => new ZkError(ZkErrorCode.CONNECTION_LOSS, path),
  systemError: (path = '/') => new ZkError(ZkErrorCode.SYSTEM_ERROR, path),
  nodeExists: (path: string) => Object.assign(new ZkError(ZkErrorCode.NODE_EXISTS, path), { nodeExists: true }),
  badVersion: (path: string) => Object.assign(new ZkError(ZkErrorCode.BAD_VERSION, path), { badVersion: true }),
};

/**
 * An in-memory ControllerZk with ZooKeeper's semantics where the controller depends on them: one-shot watches
 * fired after the change, conditional writes on zkVersion, writes fenced on /controller_epoch's zkVersion, an
 * ephemeral /controller owned by a session. Faults (errors before or after the operation takes effect) and
 * holds (an operation waits until released) are injected at chosen calls.
 */
export class FakeControllerZk implements ControllerZk {
  /** This client's session id (ephemeralOwner of what it creates). */
  sessionId = 0x1001n;
  controller: { brokerId: number; owner: bigint } | null = null;
  controllerEpoch = 0;
  controllerEpochZkVersion = 0;
  readonly brokers = new Map<number, ControllerBrokerInfo>();
  readonly topics = new Map<string, TopicAssignment>();
  readonly states = new Map<string, { state: PartitionStateData; zkVersion: number }>();
  readonly topicConfigs = new Map<string, Record<string, string>>();
  readonly isrNotifications = new Map<string, TopicPartition[]>();
  readonly logDirEvents = new Map<string, number>();
  readonly deletionMarkers = new Set<string>();
  preferredElection: TopicPartition[] | null = null;
  reassignment: { topic: string; partition: number; replicas: number[] }[] | null = null;
  readonly calls: { method: Method; args: unknown[] }[] = [];
  readonly #watches = new Map<string, (() => void)[]>();
  readonly #faults: Fault[] = [];
  readonly #holds = new Map<Method, Hold>();
  #sequence = 0;
  #czxid = 100n;

  // ---- test controls ---------------------------------------------------------------------

  /** The next `times` matching calls of `method` fail with `error` (after taking effect if `applied`). */
  fail(method: Method, error: () => Error, opts: { times?: number; applied?: boolean; match?: (args: unknown[]) => boolean } = {}): void {
    this.#faults.push({ method, error, applied: opts.applied ?? false, remaining: opts.times ?? 1, match: opts.match ?? (() => true) });
  }

  /** The next call of `method` waits until `release()`; `entered` resolves when it is waiting. */
  hold(method: Method): { entered: Promise<void>; release: () => void } {
    let release!: () => void;
    let entered!: () => void;
    const enteredP = new Promise<void>((r) => (entered = r));
    const released = new Promise<void>((r) => (release = r));
    this.#holds.set(method, { entered, released });
    return { entered: enteredP, release };
  }

  callCount(method: Method): number {
    return this.calls.filter((c) => c.method === method).length;
  }

  registerBroker(id: number): void {
    this.brokers.set(id, { id, rack: null, epoch: ++this.#czxid, endpoints: [{ listenerName: 'PLAINTEXT', host: '127.0.0.1', port: 9000 + id, securityProtocol: 'PLAINTEXT' }] });
    this.#fire('brokers');
  }

  /** The broker's session ended: its registration vanishes. */
  removeBroker(id: number): void {
    this.brokers.delete(id);
    this.#fire('brokers');
  }

  createTopic(topic: string, replicas: number[][]): void {
    this.topics.set(topic, { partitions: new Map(replicas.map((r, p) => [p, [...r]])), addingReplicas: new Map(), removingReplicas: new Map() });
    this.#fire('topics');
  }

  /** A broker reports a failed log dir (KIP-112). */
  addLogDirEvent(brokerId: number): string {
    const name = `log_dir_event_${String(this.#sequence++).padStart(10, '0')}`;
    this.logDirEvents.set(name, brokerId);
    this.#fire('logDirEvents');
    return name;
  }

  /** /controller created by some other session (another broker, or an earlier session of this one). */
  setController(brokerId: number, owner: bigint): void {
    this.controller = { brokerId, owner };
    this.controllerEpoch++;
    this.controllerEpochZkVersion++;
    this.#fire('controller');
  }

  /** The ephemeral /controller vanishes (its session ended). */
  deleteController(): void {
    this.controller = null;
    this.#fire('controller');
  }

  state(topic: string, partition: number): PartitionStateData | undefined {
    return this.states.get(tpKey(topic, partition))?.state;
  }

  // ---- ControllerZk ------------------------------------------------------------------------

  tryElectController(brokerId: number): Promise<ElectionOutcome> {
    return this.#op('tryElectController', [brokerId], () => {
      if (this.controller) return this.#describe(brokerId);
      // One multi: create the ephemeral /controller and bump /controller_epoch.
      this.controller = { brokerId, owner: this.sessionId };
      this.controllerEpoch++;
      this.controllerEpochZkVersion++;
      this.#fire('controller');
      return { elected: true, controllerId: brokerId, epoch: this.controllerEpoch, epochZkVersion: this.controllerEpochZkVersion };
    });
  }

  describeController(brokerId: number): Promise<ElectionOutcome> {
    return this.#op('describeController', [brokerId], () => this.#describe(brokerId));
  }

  resignController(brokerId: number): Promise<void> {
    return this.#op('resignController', [brokerId], () => {
      if (this.controller?.brokerId === brokerId && this.controller.owner === this.sessionId) this.deleteController();
    });
  }

  getControllerId(watch?: () => void): Promise<number | null> {
    // exists() sets the watch whether or not the node is there.
    return this.#op('getControllerId', [], () => {
      this.#watch('controller', watch);
      return this.controller?.brokerId ?? null;
    });
  }

  getBrokerIds(watch?: () => void): Promise<number[]> {
    return this.#op('getBrokerIds', [], () => {
      this.#watch('brokers', watch);
      return [...this.brokers.keys()].sort((a, b) => a - b);
    });
  }

  getBroker(id: number): Promise<ControllerBrokerInfo | null> {
    return this.#op('getBroker', [id], () => {
      const b = this.brokers.get(id);
      return b ? { ...b, endpoints: b.endpoints.map((e) => ({ ...e })) } : null;
    });
  }

  getTopics(watch?: () => void): Promise<string[]> {
    return this.#op('getTopics', [], () => {
      this.#watch('topics', watch);
      return [...this.topics.keys()].sort();
    });
  }

  getTopicConfig(topic: string): Promise<Record<string, string>> {
    return this.#op('getTopicConfig', [topic], () => ({ ...(this.topicConfigs.get(topic) ?? {}) }));
  }

  getTopicAssignment(topic: string, watch?: () => void): Promise<TopicAssignment | null> {
    return this.#op('getTopicAssignment', [topic], () => {
      const a = this.topics.get(topic);
      if (!a) return null; // getData on a missing node sets no watch
      this.#watch(`topic:${topic}`, watch);
      return copyAssignment(a);
    });
  }

  getPartitionState(topic: string, partition: number) {
    return this.#op('getPartitionState', [topic, partition], () => {
      const s = this.states.get(tpKey(topic, partition));
      return s ? { state: { ...s.state, isr: [...s.state.isr] }, zkVersion: s.zkVersion } : null;
    });
  }

  createPartitionState(topic: string, partition: number, state: PartitionStateData, controllerEpochZkVersion: number): Promise<number> {
    return this.#op('createPartitionState', [topic, partition, state], () => {
      this.#fence(controllerEpochZkVersion);
      const key = tpKey(topic, partition);
      if (this.states.has(key)) throw zkErrors.nodeExists(`/brokers/topics/${topic}/partitions/${partition}/state`);
      this.states.set(key, { state: { ...state, isr: [...state.isr] }, zkVersion: 0 });
      return 0;
    });
  }

  updatePartitionState(topic: string, partition: number, state: PartitionStateData, expectedZkVersion: number, controllerEpochZkVersion: number): Promise<number> {
    return this.#op('updatePartitionState', [topic, partition, state], () => {
      this.#fence(controllerEpochZkVersion);
      const path = `/brokers/topics/${topic}/partitions/${partition}/state`;
      const current = this.states.get(tpKey(topic, partition));
      if (!current) throw new ZkError(ZkErrorCode.NO_NODE, path);
      if (current.zkVersion !== expectedZkVersion) throw zkErrors.badVersion(path);
      this.states.set(tpKey(topic, partition), { state: { ...state, isr: [...state.isr] }, zkVersion: current.zkVersion + 1 });
      return current.zkVersion + 1;
    });
  }

  getTopicsMarkedForDeletion(watch?: () => void): Promise<string[]> {
    return this.#op('getTopicsMarkedForDeletion', [], () => {
      this.#watch('deletions', watch);
      return [...this.deletionMarkers].sort();
    });
  }

  removeTopicDeletionMarker(topic: string, controllerEpochZkVersion: number): Promise<void> {
    return this.#op('removeTopicDeletionMarker', [topic], () => {
      this.#fence(controllerEpochZkVersion);
      if (this.deletionMarkers.delete(topic)) this.#fire('deletions');
    });
  }

  deleteTopicZnodes(topic: string, controllerEpochZkVersion: number): Promise<void> {
    return this.#op('deleteTopicZnodes', [topic], () => {
      this.#fence(controllerEpochZkVersion);
      for (const p of this.topics.get(topic)?.partitions.keys() ?? []) this.states.delete(tpKey(topic, p));
      this.topics.delete(topic);
      this.topicConfigs.delete(topic);
      this.deletionMarkers.delete(topic);
      this.#fire('topics');
      this.#fire(`topic:${topic}`);
      this.#fire('deletions');
    });
  }

  getPreferredReplicaElection(watch?: () => void): Promise<TopicPartition[] | null> {
    return this.#op('getPreferredReplicaElection', [], () => {
      this.#watch('preferred', watch);
      return this.preferredElection ? this.preferredElection.map((tp) => ({ ...tp })) : null;
    });
  }

  deletePreferredReplicaElection(controllerEpochZkVersion: number): Promise<void> {
    return this.#op('deletePreferredReplicaElection', [], () => {
      this.#fence(controllerEpochZkVersion);
      this.preferredElection = null;
      this.#fire('preferred');
    });
  }

  getPartitionReassignment(watch?: () => void) {
    return this.#op('getPartitionReassignment', [], () => {
      this.#watch('reassign', watch);
      return this.reassignment ? this.reassignment.map((r) => ({ ...r, replicas: [...r.replicas] })) : null;
    });
  }

  setPartitionReassignment(pending: { topic: string; partition: number; replicas: number[] }[], controllerEpochZkVersion: number): Promise<void> {
    return this.#op('setPartitionReassignment', [pending], () => {
      this.#fence(controllerEpochZkVersion);
      this.reassignment = pending.length === 0 ? null : pending.map((r) => ({ ...r, replicas: [...r.replicas] }));
      this.#fire('reassign');
    });
  }

  writeTopicAssignment(topic: string, assignment: TopicAssignment, controllerEpochZkVersion: number): Promise<void> {
    return this.#op('writeTopicAssignment', [topic, assignment], () => {
      this.#fence(controllerEpochZkVersion);
      if (!this.topics.has(topic)) throw new ZkError(ZkErrorCode.NO_NODE, `/brokers/topics/${topic}`);
      this.topics.set(topic, copyAssignment(assignment));
      this.#fire(`topic:${topic}`);
    });
  }

  getIsrChangeNotifications(watch?: () => void) {
    return this.#op('getIsrChangeNotifications', [], () => {
      this.#watch('isrChanges', watch);
      return [...this.isrNotifications].sort(([a], [b]) => a.localeCompare(b)).map(([name, partitions]) => ({ name, partitions: partitions.map((tp) => ({ ...tp })) }));
    });
  }

  deleteIsrChangeNotifications(names: string[], controllerEpochZkVersion: number): Promise<void> {
    return this.#op('deleteIsrChangeNotifications', [names], () => {
      this.#fence(controllerEpochZkVersion);
      for (const n of names) this.isrNotifications.delete(n);
      if (names.length > 0) this.#fire('isrChanges');
    });
  }

  getLogDirEventNotifications(watch?: () => void) {
    return this.#op('getLogDirEventNotifications', [], () => {
      this.#watch('logDirEvents', watch);
      return [...this.logDirEvents].sort(([a], [b]) => a.localeCompare(b)).map(([name, brokerId]) => ({ name, brokerId }));
    });
  }

  deleteLogDirEventNotifications(names: string[], controllerEpochZkVersion: number): Promise<void> {
    return this.#op('deleteLogDirEventNotifications', [names], () => {
      this.#fence(controllerEpochZkVersion);
      for (const n of names) this.logDirEvents.delete(n);
      if (names.length > 0) this.#fire('logDirEvents');
    });
  }

  // ---- internals ---------------------------------------------------------------------------

  async #op<T>(method: Method, args: unknown[], run: () => T): Promise<T> {
    this.calls.push({ method, args });
    await Promise.resolve(); // answered asynchronously, as a round trip is
    const hold = this.#holds.get(method);
    if (hold) {
      this.#holds.delete(method);
      hold.entered();
      await hold.released;
    }
    const i = this.#faults.findIndex((f) => f.method === method && f.remaining > 0 && f.match(args));
    const fault = i >= 0 ? this.#faults[i]! : undefined;
    if (fault && --fault.remaining === 0) this.#faults.splice(i, 1);
    if (fault && !fault.applied) throw fault.error();
    const result = run();
    if (fault) throw fault.error();
    return result;
  }

  #describe(brokerId: number): ElectionOutcome {
    const c = this.controller;
    return {
      elected: c !== null && c.brokerId === brokerId && c.owner === this.sessionId,
      controllerId: c?.brokerId ?? null,
      epoch: this.controllerEpoch,
      epochZkVersion: this.controllerEpochZkVersion,
    };
  }

  /** Controller writes are multis with a check on /controller_epoch's zkVersion. */
  #fence(controllerEpochZkVersion: number): void {
    if (controllerEpochZkVersion !== this.controllerEpochZkVersion) {
      throw new ControllerMovedError(`controller epoch zkVersion ${controllerEpochZkVersion} is stale (now ${this.controllerEpochZkVersion})`);
    }
  }

  #watch(key: string, watch: (() => void) | undefined): void {
    if (!watch) return;
    let list = this.#watches.get(key);
    if (!list) this.#watches.set(key, (list = []));
    list.push(watch);
  }

  /** One-shot watches fire after the change, asynchronously. */
  #fire(key: string): void {
    const list = this.#watches.get(key);
    if (!list) return;
    this.#watches.delete(key);
    setImmediate(() => {
      for (const w of list) w();
    });
  }
}

function copyAssignment(a: TopicAssignment): TopicAssignment {
  const copy = (m: Map<number, number[]>) => new Map([...m].map(([p, r]) => [p, [...r]]));
  return { partitions: copy(a.partitions), addingReplicas: copy(a.addingReplicas), removingReplicas: copy(a.removingReplicas) };
}
