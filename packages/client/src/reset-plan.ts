import { ConfigError } from '@gregor/common';

// kafka-consumer-groups --reset-offsets planning, shared by `gregor groups` and the HTTP admin's
// POST /v1/groups/:id/offsets/reset (which the web console calls): one set of rules for both.

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
