import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { CorruptDataError, ErrorCode } from '@gregor/common';
import { computeLegacyCrc, legacyCrcMatches, readLegacyEntry, writeLegacyEntry, legacyEntrySize } from './legacy-record.js';
import { decodeMessageSet, encodeMessageSet, forEachLegacyEntry } from './message-set.js';

/**
 * Message bodies from Sarama 1.22's message_test.go and fetch_response_test.go (Debian's
 * golang-github-shopify-sarama-dev): what a Go client writes and expects to read.
 */
const SARAMA = {
  emptyMessage: [167, 236, 104, 3, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
  emptyV1Message: [204, 47, 121, 217, 0x01, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff],
  // v0, no key, value 00 EE (the message of oneMessageFetchResponse).
  oneMessage: [0x23, 0x96, 0x4a, 0xf7, 0x00, 0x00, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x02, 0x00, 0xee],
  // v0 gzip wrapper holding two empty v0 messages at offsets 0 and 1.
  emptyBulkGzipMessage: [
    139, 160, 63, 141, 0x00, 0x01, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x27, 0x1f, 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0, 99, 96, 128, 3, 190, 202, 112, 143, 7, 12, 12, 255,
    129, 0, 33, 200, 192, 136, 41, 3, 0, 199, 226, 155, 70, 52, 0, 0, 0,
  ],
  // v0 snappy wrapper (snappy-java framing) holding two messages with empty keys and values.
  emptyBulkSnappyMessage: [
    180, 47, 53, 209, 0x00, 0x02, 0xff, 0xff, 0xff, 0xff, 0, 0, 0, 42, 130, 83, 78, 65, 80, 80, 89, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 22, 52, 0, 0, 25, 1, 16, 14, 227,
    138, 104, 118, 25, 15, 13, 1, 8, 1, 0, 0, 62, 26, 0,
  ],
  // v1 lz4 wrapper (frame with a content checksum) holding two v0 messages at relative offsets 0 and 1.
  emptyBulkLZ4Message: [
    246, 12, 188, 129, 0x01, 0x03, 255, 255, 249, 209, 212, 181, 73, 201, 0xff, 0xff, 0xff, 0xff, 0x00, 0x00, 0x00, 0x47, 0x04, 0x22, 0x4d, 0x18, 100, 112, 185, 52, 0, 0,
    128, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 14, 121, 87, 72, 224, 0, 0, 255, 255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 14, 121, 87, 72, 224, 0, 0, 255,
    255, 255, 255, 0, 0, 0, 0, 0, 0, 0, 0, 71, 129, 23, 111,
  ],
};

/** A message body behind the 12-byte offset + size prefix. */
function entry(offset: number, body: readonly number[] | Buffer): Buffer {
  const b = Buffer.alloc(12 + body.length);
  b.writeBigInt64BE(BigInt(offset), 0);
  b.writeInt32BE(body.length, 8);
  Buffer.from(body).copy(b, 12);
  return b;
}

const records = (n: number, base = 0, ts = 1_700_000_000_000) =>
  Array.from({ length: n }, (_, i) => ({ offset: base + i, timestamp: ts + i, key: i % 3 === 0 ? null : Buffer.from(`k${i}`), value: Buffer.from(`value-${i}-${'x'.repeat(i % 40)}`) }));

describe('message format v0/v1 (MessageSet)', () => {
  it('uses CRC-32 (IEEE) over magic..end: crc32("123456789") = CBF43926', () => {
    const buf = Buffer.concat([Buffer.alloc(16), Buffer.from('123456789')]);
    expect(computeLegacyCrc(buf, 0, buf.length).toString(16)).toBe('cbf43926');
  });

  it.each([
    ['emptyMessage', 0, null, null],
    ['emptyV1Message', 1, null, null],
    ['oneMessage', 0, null, Buffer.from([0x00, 0xee])],
  ] as const)("reads Sarama's %s and writes it back byte for byte", (name, magic, key, value) => {
    const bytes = entry(0x55, SARAMA[name]);
    const e = readLegacyEntry(bytes, 0);
    expect(e).toMatchObject({ offset: 0x55, magic, compression: 0, timestamp: magic === 0 ? -1 : 0, key, value });
    expect(legacyCrcMatches(bytes, e)).toBe(true);
    const out = Buffer.alloc(legacyEntrySize(magic, key, value));
    writeLegacyEntry(out, 0, { offset: 0x55, magic, attributes: 0, timestamp: e.timestamp, key, value });
    expect(out).toEqual(bytes);
  });

  it.each([
    ['emptyBulkGzipMessage', 1, [0, 1]],
    ['emptyBulkSnappyMessage', 2, [0, 1]],
  ] as const)("unwraps Sarama's v0 %s: inner offsets are absolute", (name, codec, offsets) => {
    const got = decodeMessageSet(entry(1, SARAMA[name]));
    expect(got.map((r) => r.offset)).toEqual(offsets);
    expect(got.every((r) => r.compression === codec && r.timestamp === -1 && r.value!.length === 0)).toBe(true);
  });

  it("unwraps Sarama's v1 lz4 wrapper: inner offsets relative, wrapper at the last absolute offset", () => {
    expect(decodeMessageSet(entry(41, SARAMA.emptyBulkLZ4Message)).map((r) => r.offset)).toEqual([40, 41]);
    // Wrapper offset 0 (old librdkafka producers) is taken as base 0, not as "last inner at 0".
    expect(decodeMessageSet(entry(0, SARAMA.emptyBulkLZ4Message)).map((r) => r.offset)).toEqual([0, 1]);
  });

  it('computes absolute offsets of v1 inner messages from the wrapper and refuses a wrapper below its last inner offset', () => {
    const set = encodeMessageSet({ magic: 1, compression: 1, records: records(5, 100) });
    const wrapper = readLegacyEntry(set, 0);
    expect(wrapper.offset).toBe(104);
    expect(decodeMessageSet(set).map((r) => r.offset)).toEqual([100, 101, 102, 103, 104]);
    const moved = Buffer.from(set);
    moved.writeBigInt64BE(3n, 0); // below the last relative offset 4: not a valid wrapper (the offset is outside the CRC)
    expect(() => decodeMessageSet(moved)).toThrow(expect.objectContaining({ code: ErrorCode.INVALID_RECORD }));
  });

  it('v1 LogAppendTime wrappers give their timestamp to every inner message', () => {
    const set = encodeMessageSet({ magic: 1, compression: 2, timestampType: 1, logAppendTime: 1234, records: records(3) });
    expect(readLegacyEntry(set, 0)).toMatchObject({ timestampType: 1, timestamp: 1234 });
    expect(decodeMessageSet(set).map((r) => [r.timestampType, r.timestamp])).toEqual([
      [1, 1234],
      [1, 1234],
      [1, 1234],
    ]);
  });

  it.each([0, 1] as const)('round-trips v%i sets with every legacy codec, keys and values byte-exact', (magic) => {
    for (const compression of [0, 1, 2, 3]) {
      const input = records(300, 7);
      const set = encodeMessageSet({ magic, compression, records: input });
      let wrappers = 0;
      forEachLegacyEntry(set, () => void wrappers++);
      expect(wrappers).toBe(compression === 0 ? 300 : 1);
      const got = decodeMessageSet(set);
      expect(got.map((r) => r.offset)).toEqual(input.map((r) => r.offset));
      expect(got.map((r) => [r.key, r.value])).toEqual(input.map((r) => [r.key, r.value]));
      expect(got.every((r) => r.timestamp === (magic === 0 ? -1 : r.offset - 7 + 1_700_000_000_000))).toBe(true);
    }
  });

  it('writes lz4 wrappers of magic 0 with the legacy header checksum and of magic 1 with the standard one', () => {
    const v0 = readLegacyEntry(encodeMessageSet({ magic: 0, compression: 3, records: records(2) }), 0).value!;
    const v1 = readLegacyEntry(encodeMessageSet({ magic: 1, compression: 3, records: records(2) }), 0).value!;
    expect(v0.subarray(0, 6)).toEqual(v1.subarray(0, 6));
    expect(v0[6]).not.toBe(v1[6]);
  });

  it('drops a truncated trailing entry (a byte-bounded fetch) and refuses it when told to', () => {
    const set = encodeMessageSet({ magic: 0, compression: 0, records: records(3) });
    for (let cut = 1; cut < readLegacyEntry(set, 0).sizeInBytes + 2; cut++) {
      const truncated = set.subarray(0, set.length - cut);
      const got = decodeMessageSet(truncated);
      expect(got.length).toBeLessThan(3);
      expect(() => forEachLegacyEntry(truncated, () => {})).toThrow(CorruptDataError);
    }
    // Sarama's overflow case: a real message followed by a fake entry (offset -1, size 255) cut short.
    const overflow = Buffer.concat([entry(0x55, SARAMA.oneMessage), Buffer.from('ffffffffffffffff000000ff0000000000000000', 'hex')]);
    expect(decodeMessageSet(overflow)).toMatchObject([{ offset: 0x55, value: Buffer.from([0x00, 0xee]) }]);
  });

  it('refuses corrupt entries: CRC mismatch, size below 14, unknown magic, fields past the end', () => {
    const good = encodeMessageSet({ magic: 1, compression: 0, records: records(1) });
    const badCrc = Buffer.from(good);
    badCrc[badCrc.length - 1] ^= 1;
    expect(() => decodeMessageSet(badCrc)).toThrow(CorruptDataError);
    expect(decodeMessageSet(badCrc, { verifyCrc: false })).toHaveLength(1);
    const small = Buffer.from(good);
    small.writeInt32BE(13, 8);
    expect(() => decodeMessageSet(small)).toThrow(CorruptDataError);
    const magic = Buffer.from(good);
    magic[16] = 3;
    expect(() => decodeMessageSet(magic)).toThrow(CorruptDataError);
    const keyLen = Buffer.from(good);
    keyLen.writeInt32BE(1000, 26);
    expect(() => decodeMessageSet(keyLen, { verifyCrc: false })).toThrow(CorruptDataError);
  });

  it('refuses zstd wrappers (not a v0/v1 codec), compressed inner messages and empty wrappers', () => {
    expect(() => encodeMessageSet({ magic: 1, compression: 4, records: records(1) })).toThrow(expect.objectContaining({ code: ErrorCode.UNSUPPORTED_COMPRESSION_TYPE }));
    const zstd = Buffer.from(encodeMessageSet({ magic: 1, compression: 1, records: records(2) }));
    zstd[17] = 4;
    expect(() => decodeMessageSet(zstd, { verifyCrc: false })).toThrow(expect.objectContaining({ code: ErrorCode.INVALID_RECORD }));
    // A gzip wrapper whose inner message is itself a (snappy) wrapper.
    expect(() => decodeMessageSet(wrap(encodeMessageSet({ magic: 0, compression: 2, records: records(2) })))).toThrow(expect.objectContaining({ code: ErrorCode.INVALID_RECORD }));
    expect(() => decodeMessageSet(wrap(Buffer.alloc(0)))).toThrow(expect.objectContaining({ code: ErrorCode.INVALID_RECORD }));
  });
});

/** A v0 gzip wrapper around arbitrary inner bytes. */
function wrap(inner: Buffer): Buffer {
  const value = gzipSync(inner);
  const out = Buffer.alloc(legacyEntrySize(0, null, value));
  writeLegacyEntry(out, 0, { offset: 1, magic: 0, attributes: 1, timestamp: -1, key: null, value });
  return out;
}
