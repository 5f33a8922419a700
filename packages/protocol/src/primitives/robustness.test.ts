import fc from 'fast-check';
import { GregorError } from '@gregor/common';
import { describe, expect, it } from 'vitest';
import { allApis } from '../api-table.js';
import { decodeRequestFrame } from '../framing/frames.js';
import { decodeRecordBatch } from '../record-batch/decode-record-batch.js';
import { CompressionType } from '../record-batch/batch-header.js';
import { encodeRecordBatch } from '../record-batch/encode-record-batch.js';
import { loadFixture } from '../test-fixtures/load-fixture.js';
import { Reader } from './reader.js';

const codecs = allApis().flatMap((api) => [...api.versions.values()]);

/** Runs fn and fails the property if it throws anything but a GregorError (CorruptDataError included). */
function onlyGregorErrors(fn: () => unknown): boolean {
  try {
    fn();
  } catch (err) {
    if (!(err instanceof GregorError)) throw err;
  }
  return true;
}

const seeds = [
  loadFixture('produce-v3_request'),
  loadFixture('fetch-v11_response'),
  loadFixture('metadata-v5_response'),
  encodeRecordBatch({ baseOffset: 0, compression: CompressionType.gzip, firstTimestamp: 1, records: [{ key: null, value: Buffer.from('v'), headers: [{ key: 'h', value: null }], timestamp: 2 }] }),
];

describe('decoders on hostile bytes', () => {
  it('random bytes make any codec throw nothing but GregorErrors', () => {
    fc.assert(
      fc.property(fc.nat(codecs.length - 1), fc.boolean(), fc.uint8Array({ maxLength: 96 }), (i, isRequest, bytes) => {
        const codec = codecs[i]!;
        const r = new Reader(Buffer.from(bytes));
        return onlyGregorErrors(() => (isRequest ? codec.decodeRequest(r) : codec.decodeResponse(r)));
      }),
      { seed: 20261130, numRuns: 3000 },
    );
  });

  it('random frames make decodeRequestFrame throw nothing but GregorErrors', () => {
    const headers = codecs.map((c) => [c.apiKey, c.version] as const);
    fc.assert(
      fc.property(fc.nat(headers.length - 1), fc.uint8Array({ maxLength: 64 }), (i, tail) => {
        const [key, version] = headers[i]!;
        const frame = Buffer.concat([Buffer.from([key >> 8, key & 0xff, 0, version, 0, 0, 0, 1]), Buffer.from(tail)]);
        return onlyGregorErrors(() => decodeRequestFrame(frame));
      }),
      { seed: 7, numRuns: 2000 },
    );
  });

  it('flipped bytes in real payloads and batches throw nothing but GregorErrors', () => {
    fc.assert(
      fc.property(fc.nat(seeds.length - 1), fc.array(fc.tuple(fc.nat(), fc.nat(255)), { minLength: 1, maxLength: 4 }), fc.nat(), (s, flips, cut) => {
        const buf = Buffer.from(seeds[s]!);
        for (const [pos, value] of flips) buf[pos % buf.length] = value;
        const truncated = buf.subarray(0, buf.length - (cut % 8));
        onlyGregorErrors(() => decodeRecordBatch(truncated, 0, { verifyCrc: false }));
        for (const codec of codecs) {
          onlyGregorErrors(() => codec.decodeRequest(new Reader(truncated)));
          onlyGregorErrors(() => codec.decodeResponse(new Reader(truncated)));
        }
        return true;
      }),
      { seed: 42, numRuns: 300 },
    );
  });

  it('an array count larger than the remaining bytes is rejected before allocating', () => {
    const r = new Reader(Buffer.from([0x7f, 0xff, 0xff, 0xff]));
    expect(() => r.array((r) => r.int32(), 4)).toThrow(GregorError);
  });
});
