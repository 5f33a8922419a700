// Jepsen-style history: every operation of the clients (invoke, then ok / fail / info), every fault and
// every observed change of partition state, with monotonic times in ms since the history began.
// ok = it happened; fail = it certainly did not; info = unknown (timeout, connection lost, ambiguous error).
import { performance } from 'node:perf_hooks';

export type OpType = 'invoke' | 'ok' | 'fail' | 'info';

interface Base {
  /** Position in the history (assigned on record). */
  index: number;
  /** ms since the history began (performance.now(), so never going back). */
  time: number;
}

/** A producer writing one unique value to one partition; a retry of the value is a new invoke with attempt + 1. */
export interface SendEvent extends Base {
  f: 'send';
  type: OpType;
  process: string;
  value: string;
  partition: number;
  attempt: number;
  /** On ok: where the broker said it wrote the value. */
  offset?: number;
  /** On fail/info: the error's name. */
  error?: string;
}

/** A consumer's fetch: on ok the records it returned (offset, value) and the high watermark the leader reported. */
export interface PollEvent extends Base {
  f: 'poll';
  type: OpType;
  process: string;
  partition: number;
  fetchOffset: number;
  records?: [number, string][];
  highWatermark?: number;
  error?: string;
}

/** A fault starting or ending (healed). */
export interface FaultEvent extends Base {
  f: 'fault-start' | 'fault-end';
  type: 'info';
  process: 'nemesis';
  /** Same id on the start and the end of one fault. */
  id: number;
  fault: string;
  detail: string;
}

/** A change of a partition's state znode, /controller or /brokers/ids as read from ZooKeeper. */
export interface StateEvent extends Base {
  f: 'partition-state';
  type: 'info';
  process: 'zookeeper';
  partition: number;
  leader: number;
  leaderEpoch: number;
  isr: number[];
  zkVersion: number;
  /**
   * Brokers this change took into the ISR while they were not registered in ZooKeeper, by ZooKeeper's own
   * order: no /brokers/ids/N, or one created (czxid) after this state was written (mzxid).
   */
  joinedUnregistered?: number[];
}

export interface ControllerEvent extends Base {
  f: 'controller';
  type: 'info';
  process: 'zookeeper';
  controllerId: number | null;
}

export interface BrokersEvent extends Base {
  f: 'brokers';
  type: 'info';
  process: 'zookeeper';
  brokerIds: number[];
}

/** A note for the timeline (scenario phases). */
export interface NoteEvent extends Base {
  f: 'note';
  type: 'info';
  process: 'scenario';
  text: string;
}

export type HistoryEvent = SendEvent | PollEvent | FaultEvent | StateEvent | ControllerEvent | BrokersEvent | NoteEvent;

/** Omit over each member of a union. */
export type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

/** The event without the fields the history assigns. */
export type NewEvent = DistributiveOmit<HistoryEvent, 'index' | 'time'>;

export class History {
  readonly events: HistoryEvent[] = [];
  /** Wall-clock start, to relate times to logs. */
  readonly startedAt = new Date().toISOString();
  readonly #t0 = performance.now();

  now(): number {
    return Math.round((performance.now() - this.#t0) * 10) / 10;
  }

  record<E extends NewEvent>(event: E): HistoryEvent {
    const full = { ...event, index: this.events.length, time: this.now() } as HistoryEvent;
    this.events.push(full);
    return full;
  }

  note(text: string): void {
    this.record({ f: 'note', type: 'info', process: 'scenario', text });
  }

  sends(): SendEvent[] {
    return this.events.filter((e): e is SendEvent => e.f === 'send');
  }

  polls(): PollEvent[] {
    return this.events.filter((e): e is PollEvent => e.f === 'poll');
  }

  faults(): FaultEvent[] {
    return this.events.filter((e): e is FaultEvent => e.f === 'fault-start' || e.f === 'fault-end');
  }

  states(): StateEvent[] {
    return this.events.filter((e): e is StateEvent => e.f === 'partition-state');
  }
}

/** Names an error for the history: Kafka's error name when there is a code, else the message's start. */
export function errorName(err: unknown): string {
  const e = err as { codeName?: string; type?: string; name?: string; message?: string };
  if (typeof e?.codeName === 'string') return e.codeName;
  if (typeof e?.type === 'string' && /^[A-Z_]+$/.test(e.type)) return e.type;
  return `${e?.name ?? 'Error'}: ${(e?.message ?? String(err)).slice(0, 80)}`;
}
