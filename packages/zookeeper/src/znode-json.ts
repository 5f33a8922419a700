import { CorruptDataError } from '@gregor/common';

/** Reading and writing znode JSON: every decoder throws CorruptDataError naming the znode on anything unexpected. */

export type Json = Record<string, unknown>;

export function fail(what: string, problem: string): never {
  throw new CorruptDataError(`${what}: ${problem}`);
}

export function parseObject(data: Buffer | string, what: string): Json {
  const text = typeof data === 'string' ? data : data.toString('utf8');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    fail(what, `not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(what, `expected a JSON object, got ${text.slice(0, 200)}`);
  return value as Json;
}

export function int(obj: Json, key: string, what: string): number {
  const value = obj[key];
  if (typeof value !== 'number' || !Number.isInteger(value)) fail(what, `"${key}" must be an integer, got ${JSON.stringify(value)}`);
  return value;
}

export function intArray(value: unknown, what: string, key: string): number[] {
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'number' && Number.isInteger(v))) {
    fail(what, `"${key}" must be an array of integers, got ${JSON.stringify(value)}`);
  }
  return value as number[];
}

export function str(obj: Json, key: string, what: string): string {
  const value = obj[key];
  if (typeof value !== 'string') fail(what, `"${key}" must be a string, got ${JSON.stringify(value)}`);
  return value;
}

export function object(obj: Json, key: string, what: string): Json {
  const value = obj[key];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(what, `"${key}" must be an object, got ${JSON.stringify(value)}`);
  return value as Json;
}

/** Kafka writes millisecond timestamps as decimal strings; accept numbers too. */
export function timestamp(obj: Json, key: string, what: string): number {
  const value = obj[key];
  const ms = typeof value === 'string' ? Number(value) : value;
  if (typeof ms !== 'number' || !Number.isFinite(ms)) fail(what, `"${key}" must be a millisecond timestamp, got ${JSON.stringify(value)}`);
  return ms;
}

export function decimal(data: Buffer | string, what: string): number {
  const text = (typeof data === 'string' ? data : data.toString('utf8')).trim();
  if (!/^-?\d+$/.test(text)) fail(what, `expected a decimal integer, got ${JSON.stringify(text.slice(0, 100))}`);
  return Number(text);
}

export function json(value: unknown): Buffer {
  return Buffer.from(JSON.stringify(value), 'utf8');
}
