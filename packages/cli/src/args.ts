import { readFileSync } from 'node:fs';
import { closestName } from '@gregor/common';
import { isParseArgsError, UsageError } from './usage-error.js';

/**
 * Runs a node:util parseArgs call; its mistakes become UsageErrors carrying the command's usage.
 * With the command's option table, an unknown flag gets the nearest known one as a hint.
 */
export function parsed<T>(parseCall: () => T, usage: string, options?: Record<string, unknown>): T {
  try {
    return parseCall();
  } catch (error) {
    if (!isParseArgsError(error)) throw error;
    const unknown = /Unknown option '(-{1,2})([^']+)'/.exec(error.message);
    if (unknown && options) {
      const flag = `${unknown[1]}${unknown[2]}`;
      const hint = closestName(unknown[2]!, Object.keys(options));
      throw new UsageError(`unknown option ${flag}${hint ? ` (did you mean --${hint}?)` : ''}`, usage);
    }
    throw new UsageError(error.message, usage);
  }
}

/** "did you mean" for a word that is not one of `known`. */
export function unknownWord(kind: string, word: string, known: readonly string[], usage: string): UsageError {
  const hint = closestName(word, known);
  return new UsageError(`unknown ${kind} "${word}"${hint ? ` (did you mean "${hint}"?)` : ''}`, usage);
}

/**
 * The action of a command given either as a subcommand (`topics create`) or as Kafka's script flag
 * (`--create`); exactly one. Returns the action and the positionals after a subcommand.
 */
export function actionOf<A extends string>(
  positionals: readonly string[],
  flags: Partial<Record<A, boolean | undefined>>,
  actions: readonly A[],
  usage: string,
): { action: A; rest: string[] } {
  const fromFlags = actions.filter((a) => flags[a] === true);
  const [first, ...rest] = positionals;
  let fromWord: A | undefined;
  if (first !== undefined) {
    if (!(actions as readonly string[]).includes(first)) {
      if (fromFlags.length === 0) throw unknownWord('action', first, actions, usage);
    } else fromWord = first as A;
  }
  const all = [...new Set([...fromFlags, ...(fromWord ? [fromWord] : [])])];
  if (all.length === 0) throw new UsageError(`missing action: one of ${actions.join(', ')} (or --${actions.join(', --')})`, usage);
  if (all.length > 1) throw new UsageError(`give one action, got ${all.join(' and ')}`, usage);
  return { action: all[0]!, rest: fromWord ? rest : [...positionals] };
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

/** Reads a small file a command takes (plan JSON, offsets JSON); a missing file is a usage mistake. */
export function readInputFile(path: string, name: string, usage: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--${name}: cannot read ${path}: ${(error as Error).message}`, usage);
  }
}

/** JSON of a file a command takes; a syntax error names the file. */
export function parseJsonInput(text: string, what: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new UsageError(`${what} is not valid JSON: ${(error as Error).message}`);
  }
}
