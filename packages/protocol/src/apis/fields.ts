import type { Reader } from '../primitives/reader.js';
import type { Writer } from '../primitives/writer.js';

/** Array helpers shared by the API codecs. */
export function writeInt32Array(w: Writer, items: readonly number[]): void {
  w.array(items, (w, x) => w.int32(x));
}

export function readInt32Array(r: Reader): number[] {
  return r.array((r) => r.int32(), 4);
}

export function writeStringArray(w: Writer, items: readonly string[]): void {
  w.array(items, (w, s) => w.string(s));
}

export function readStringArray(r: Reader): string[] {
  return r.array((r) => r.string(), r.flexible ? 1 : 2);
}
