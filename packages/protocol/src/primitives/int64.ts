/**
 * The signed 64-bit big-endian integer at `pos` as a JS number, from two 32-bit reads: the same value as
 * Number(buf.readBigInt64BE(pos)) (exact below 2^53, rounded to nearest beyond, as that conversion rounds), without
 * allocating a BigInt. Offsets and timestamps are read this way on every batch header of every produce and fetch.
 */
export function readInt64Number(buf: Buffer, pos: number): number {
  return buf.readInt32BE(pos) * 4294967296 + buf.readUInt32BE(pos + 4);
}
