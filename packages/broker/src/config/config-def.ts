import { ConfigError } from '@gregor/common';

/** One setting: Kafka's name, its type, default and validation. `password` values are secrets: never described. */
export type ConfigType = 'int' | 'long' | 'boolean' | 'string' | 'list' | 'double' | 'password';

export interface ConfigKey {
  readonly name: string;
  readonly type: ConfigType;
  /** undefined = required. */
  readonly default?: string | number | boolean | string[] | null;
  readonly doc: string;
  readonly validate?: (value: never) => string | undefined;
}

export type ConfigValue = string | number | boolean | string[] | null;

export function parseValue(key: ConfigKey, raw: string): ConfigValue {
  const s = raw.trim();
  switch (key.type) {
    case 'int':
    case 'long': {
      if (!/^-?\d+$/.test(s)) throw new ConfigError(`Invalid value "${raw}" for configuration ${key.name}: not a number`);
      const n = Number(s);
      if (key.type === 'long' && !Number.isSafeInteger(n)) {
        // Java's long range is valid (Long.MAX_VALUE is Kafka's "off" for many settings); beyond 2^53 it is
        // kept as the nearest safe integer, which no clock or size reaches.
        const big = BigInt(s);
        if (big > 9223372036854775807n || big < -9223372036854775808n) throw new ConfigError(`Invalid value "${raw}" for configuration ${key.name}: out of range`);
        return big > 0n ? Number.MAX_SAFE_INTEGER : Number.MIN_SAFE_INTEGER;
      }
      if (!Number.isSafeInteger(n) || (key.type === 'int' && (n > 2147483647 || n < -2147483648))) {
        throw new ConfigError(`Invalid value "${raw}" for configuration ${key.name}: out of range`);
      }
      return n;
    }
    case 'double': {
      const n = Number(s);
      if (s === '' || Number.isNaN(n)) throw new ConfigError(`Invalid value "${raw}" for configuration ${key.name}: not a number`);
      return n;
    }
    case 'boolean':
      if (s.toLowerCase() === 'true') return true;
      if (s.toLowerCase() === 'false') return false;
      throw new ConfigError(`Invalid value "${raw}" for configuration ${key.name}: expected true or false`);
    case 'list':
      return s === '' ? [] : s.split(',').map((x) => x.trim()).filter((x) => x !== '');
    case 'string':
    case 'password':
      return s;
  }
}

/** A value as Kafka writes it in DescribeConfigs (ConfigDef.convertToString): lists comma-joined, null stays null. */
export function formatValue(value: ConfigValue | undefined): string | null {
  if (value === null || value === undefined) return null;
  return Array.isArray(value) ? value.join(',') : String(value);
}

/** A raw setting normalized as Kafka would describe it (parsed, then formatted); the raw text if it does not parse. */
export function normalizeValue(key: ConfigKey, raw: string): string | null {
  try {
    const value = parseValue(key, raw);
    // Java prints a whole double with a fraction (Double.toString(1.0) = "1.0").
    if (key.type === 'double' && typeof value === 'number' && Number.isInteger(value)) return value.toFixed(1);
    return formatValue(value);
  } catch {
    return raw;
  }
}

export const atLeast = (min: number) => (v: number) => (v < min ? `must be at least ${min}` : undefined);
export const between = (min: number, max: number) => (v: number) =>
  v < min || v > max ? `must be between ${min} and ${max}` : undefined;
export const oneOf = (...allowed: string[]) => (v: string) =>
  allowed.includes(v) ? undefined : `must be one of ${allowed.join(', ')}`;
