import { UsageError } from '../usage-error.js';

export { planReset, type ResetSpec, type PartitionRef, type PartitionOffsets, type PlannedOffset } from '@gregor/client';

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
