import { ErrorCode, GregorError } from '@gregor/common';
import { AlterConfigOpType, type IncrementalAlterableConfig } from '@gregor/protocol';
import { formatValue, type ConfigKey } from './config-def.js';

/** The whole new override set: a SET may carry a null value (refused when the set is validated). */
export type OverrideSet = Record<string, string | null>;

/**
 * IncrementalAlterConfigs (KIP-339) on an entity's current overrides, as Kafka's prepareIncrementalConfigs:
 * SET replaces, DELETE removes (reverting to the default), APPEND/SUBTRACT edit a LIST setting's
 * comma-separated values starting from its override, else its default. The result is then validated
 * and written as AlterConfigs would. Throws GregorError (INVALID_REQUEST, or INVALID_CONFIG for an unknown name).
 */
export function applyIncrementalOps(
  current: Readonly<Record<string, string>>,
  ops: readonly IncrementalAlterableConfig[],
  keyOf: (name: string) => ConfigKey | undefined,
): OverrideSet {
  const seen = new Set<string>();
  const duplicates = new Set<string>();
  for (const op of ops) (seen.has(op.name) ? duplicates : seen).add(op.name);
  if (duplicates.size > 0) throw new GregorError(ErrorCode.INVALID_REQUEST, `Error due to duplicate config keys : ${[...duplicates].join(',')}`);

  const next: OverrideSet = { ...current };
  for (const op of ops) {
    switch (op.configOperation) {
      case AlterConfigOpType.SET:
        next[op.name] = op.value;
        break;
      case AlterConfigOpType.DELETE:
        delete next[op.name];
        break;
      case AlterConfigOpType.APPEND:
      case AlterConfigOpType.SUBTRACT: {
        const append = op.configOperation === AlterConfigOpType.APPEND;
        const key = keyOf(op.name);
        if (!key) throw new GregorError(ErrorCode.INVALID_CONFIG, `Unknown config name: ${op.name}`);
        if (key.type !== 'list') throw new GregorError(ErrorCode.INVALID_REQUEST, `Config value ${append ? 'append' : 'subtract'} is not allowed for config key: ${op.name}`);
        if (op.value === null) throw new GregorError(ErrorCode.INVALID_REQUEST, `Config value ${append ? 'append' : 'subtract'} needs a value for config key: ${op.name}`);
        const old = splitList(next[op.name] ?? formatValue(key.default) ?? '');
        const given = splitList(op.value);
        next[op.name] = (append ? [...old, ...given] : multisetDiff(old, given)).join(',');
        break;
      }
      default:
        throw new GregorError(ErrorCode.INVALID_REQUEST, `Unknown config operation ${op.configOperation} for config key: ${op.name}`);
    }
  }
  return next;
}

function splitList(s: string): string[] {
  return s.split(',').map((x) => x.trim()).filter((x) => x !== '');
}

/** Scala's List.diff: each element of `remove` takes away one occurrence. */
function multisetDiff(items: string[], remove: string[]): string[] {
  const counts = new Map<string, number>();
  for (const r of remove) counts.set(r, (counts.get(r) ?? 0) + 1);
  return items.filter((x) => {
    const n = counts.get(x) ?? 0;
    if (n === 0) return true;
    counts.set(x, n - 1);
    return false;
  });
}
