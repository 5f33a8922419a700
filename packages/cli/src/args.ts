import { isParseArgsError, UsageError } from './usage-error.js';

/** Runs a node:util parseArgs call; its mistakes become UsageErrors carrying the command's usage. */
export function parsed<T>(parseCall: () => T, usage: string): T {
  try {
    return parseCall();
  } catch (error) {
    if (isParseArgsError(error)) throw new UsageError(error.message, usage);
    throw error;
  }
}

/** An integer option within bounds, or the fallback when absent. */
export function intOption(value: string | undefined, name: string, usage: string, fallback: number, min = 0, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return fallback;
  if (!/^-?\d+$/.test(value.trim())) throw new UsageError(`--${name} must be an integer, got "${value}"`, usage);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${n}`, usage);
  return n;
}

export function requireOption(value: string | undefined, name: string, usage: string): string {
  if (value === undefined || value === '') throw new UsageError(`--${name} is required`, usage);
  return value;
}

/** `key=value` pairs (repeatable --config) into an object. */
export function keyValues(pairs: readonly string[] | undefined, name: string, usage: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const pair of pairs ?? []) {
    const eq = pair.indexOf('=');
    if (eq <= 0) throw new UsageError(`--${name} takes key=value, got "${pair}"`, usage);
    out[pair.slice(0, eq).trim()] = pair.slice(eq + 1);
  }
  return out;
}

/** Backslash escapes a shell user types for separators: \t, \n, \\. */
export function unescapeSeparator(s: string): string {
  return s.replace(/\\([tn\\])/g, (_, c: string) => (c === 't' ? '\t' : c === 'n' ? '\n' : '\\'));
}
