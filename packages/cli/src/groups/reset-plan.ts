import { ConfigError } from '@gregor/common';
import { UsageError } from '../usage-error.js';

/** kafka-consumer-groups --reset-offsets scenarios (--by-duration resolves to a time). */
export type ResetSpec =
  | { kind: 'earliest' }
  | { kind: 'latest' }
  | { kind: 'current' }
  | { kind: 'offset'; offset: number }
  | { kind: 'shift'; by: number }
  | { kind: 'datetime'; timestamp: number };

export interface PartitionRef {
  topic: string;
  partition: number;
}

/** What a reset needs to know of one partition. */
export interface PartitionOffsets {
  /** Log start offset (ListOffsets earliest). */
  logStart: number;
  /** High watermark (ListOffsets latest): where a consumer's reading ends. */
  logEnd: number;
  /** The group's committed offset, null when none. */
  committed: number | null;
  /** For datetime: the first offset at or after the time, -1 when no record is that new. */
  atTime?: number;
}

export interface PlannedOffset extends PartitionRef {
  offset: number;
}

/**
 * The new offset of each partition, as ConsumerGroupCommand.prepareOffsetsToReset computes it:
 * --to-offset and --shift-by are clamped into [log start, log end] (with a warning), a time past
 * the last record means the log end, --to-current keeps the committed offset (log end without one).
 */
export function planReset(partitions: readonly PartitionRef[], spec: ResetSpec, offsets: (p: PartitionRef) => PartitionOffsets): { plan: PlannedOffset[]; warnings: string[] } {
  const warnings: string[] = [];
  const clamp = (p: PartitionRef, o: PartitionOffsets, wanted: number): number => {
    if (wanted > o.logEnd) {
      warnings.push(`New offset (${wanted}) is higher than latest offset for topic partition ${p.topic}-${p.partition}. Value will be set to ${o.logEnd}`);
      return o.logEnd;
    }
    if (wanted < o.logStart) {
      warnings.push(`New offset (${wanted}) is lower than earliest offset for topic partition ${p.topic}-${p.partition}. Value will be set to ${o.logStart}`);
      return o.logStart;
    }
    return wanted;
  };
  const plan = partitions.map((p) => {
    const o = offsets(p);
    let offset: number;
    switch (spec.kind) {
      case 'earliest':
        offset = o.logStart;
        break;
      case 'latest':
        offset = o.logEnd;
        break;
      case 'current':
        offset = o.committed ?? o.logEnd;
        break;
      case 'offset':
        offset = clamp(p, o, spec.offset);
        break;
      case 'shift':
        if (o.committed === null) throw new ConfigError(`Cannot shift offset for partition ${p.topic}-${p.partition} since there is no current committed offset`);
        offset = clamp(p, o, o.committed + spec.by);
        break;
      default:
        offset = o.atTime !== undefined && o.atTime >= 0 ? o.atTime : o.logEnd;
    }
    return { topic: p.topic, partition: p.partition, offset };
  });
  return { plan, warnings };
}

/**
 * kafka-consumer-groups --to-datetime: 'YYYY-MM-DDTHH:mm:SS.sss' with an optional zone (Z, +hh, +hhmm,
 * +hh:mm); without one it is UTC, as Kafka's Utils.getDateTime reads it. Dates are checked strictly.
 */
export function parseDateTime(text: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,3}))?(Z|[+-]\d{2}(?::?\d{2})?)?$/.exec(text.trim());
  if (!m) throw new UsageError(`--to-datetime "${text}" is not 'YYYY-MM-DDTHH:mm:SS.sss' (optionally with a zone: Z, +01:00)`);
  const [year, month, day, hour, minute, second] = m.slice(1, 7).map(Number) as [number, number, number, number, number, number];
  const millis = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0'));
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, millis);
  const d = new Date(utc);
  if (d.getUTCFullYear() !== year || d.getUTCMonth() !== month - 1 || d.getUTCDate() !== day || hour > 23 || minute > 59 || second > 59) {
    throw new UsageError(`--to-datetime "${text}" is not a valid date and time`);
  }
  const zone = m[8];
  if (zone === undefined || zone === 'Z') return utc;
  const z = /^([+-])(\d{2}):?(\d{2})?$/.exec(zone)!;
  const offsetMinutes = (Number(z[2]) * 60 + Number(z[3] ?? 0)) * (z[1] === '-' ? -1 : 1);
  return utc - offsetMinutes * 60_000;
}

/** kafka-consumer-groups --by-duration: ISO-8601 'PnDTnHnMnS' back from now. */
export function parseDuration(text: string): number {
  const m = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d{1,3})?)S)?)?$/i.exec(text.trim());
  if (!m || text.trim().toUpperCase() === 'P' || /T$/i.test(text.trim())) throw new UsageError(`--by-duration "${text}" is not an ISO-8601 duration like P1DT2H30M or PT15M`);
  const [days, hours, minutes, seconds] = [m[1], m[2], m[3], m[4]].map((x) => Number(x ?? 0)) as [number, number, number, number];
  return Math.round((((days * 24 + hours) * 60 + minutes) * 60 + seconds) * 1000);
}

/** --topic values: "t" (every partition) or "t:0,1,2" (those partitions). */
export function parseTopicArg(arg: string): { topic: string; partitions: number[] | null } {
  const colon = arg.indexOf(':');
  if (colon < 0) return { topic: arg, partitions: null };
  const topic = arg.slice(0, colon);
  const parts = arg.slice(colon + 1).split(',').map((s) => s.trim());
  if (topic === '' || parts.some((p) => !/^\d+$/.test(p))) throw new UsageError(`--topic "${arg}" is not TOPIC or TOPIC:P1,P2`);
  return { topic, partitions: parts.map(Number) };
}
