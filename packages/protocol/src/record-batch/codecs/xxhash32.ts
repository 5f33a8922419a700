/**
 * XXH32 (seed 0 by default), which the LZ4 frame format uses for its header checksum byte and optional
 * block checksums. Small inputs only on the hot path (the 2-byte frame descriptor); block checksums are
 * rare (Kafka and librdkafka never set them).
 */
const P1 = 0x9e3779b1;
const P2 = 0x85ebca77;
const P3 = 0xc2b2ae3d;
const P4 = 0x27d4eb2f;
const P5 = 0x165667b1;

function rotl(x: number, r: number): number {
  return (x << r) | (x >>> (32 - r));
}

function round(acc: number, lane: number): number {
  return Math.imul(rotl((acc + Math.imul(lane, P2)) | 0, 13), P1);
}

export function xxhash32(data: Uint8Array, seed = 0): number {
  const len = data.length;
  const view = new DataView(data.buffer, data.byteOffset, len);
  let pos = 0;
  let h: number;
  if (len >= 16) {
    let v1 = (seed + P1 + P2) | 0;
    let v2 = (seed + P2) | 0;
    let v3 = seed | 0;
    let v4 = (seed - P1) | 0;
    for (; pos <= len - 16; pos += 16) {
      v1 = round(v1, view.getUint32(pos, true));
      v2 = round(v2, view.getUint32(pos + 4, true));
      v3 = round(v3, view.getUint32(pos + 8, true));
      v4 = round(v4, view.getUint32(pos + 12, true));
    }
    h = (rotl(v1, 1) + rotl(v2, 7) + rotl(v3, 12) + rotl(v4, 18)) | 0;
  } else {
    h = (seed + P5) | 0;
  }
  h = (h + len) | 0;
  for (; pos <= len - 4; pos += 4) h = Math.imul(rotl((h + Math.imul(view.getUint32(pos, true), P3)) | 0, 17), P4);
  for (; pos < len; pos++) h = Math.imul(rotl((h + Math.imul(data[pos]!, P5)) | 0, 11), P1);
  h = Math.imul(h ^ (h >>> 15), P2);
  h = Math.imul(h ^ (h >>> 13), P3);
  return (h ^ (h >>> 16)) >>> 0;
}
