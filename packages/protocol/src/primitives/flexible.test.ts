import { CorruptDataError } from '@gregor/common';
import { describe, expect, it } from 'vitest';
import { Reader } from './reader.js';
import { Writer } from './writer.js';

const flexWriter = () => {
  const w = new Writer();
  w.flexible = true;
  return w;
};
const flexReader = (hex: string) => {
  const r = new Reader(Buffer.from(hex, 'hex'));
  r.flexible = true;
  return r;
};

/** KIP-482 encodings, with the examples of Kafka's Type/ByteUtils (uvarint 300 = AC 02, "abc" = 04 61 62 63). */
describe('flexible versions in the Writer and Reader', () => {
  it('switches strings, bytes and arrays to the compact encodings only in flexible mode', () => {
    const w = flexWriter();
    w.string('abc').nullableString(null).nullableString('').bytes(Buffer.from([1, 2])).nullableBytes(null);
    w.array([1, 2], (w, x) => w.int8(x)).nullableArray(null, (w, x: number) => w.int8(x));
    expect(w.toBuffer().toString('hex')).toBe('04616263' + '00' + '01' + '030102' + '00' + '030102' + '00');
    const classic = new Writer().string('abc').nullableString(null).toBuffer();
    expect(classic.toString('hex')).toBe('0003616263' + 'ffff');
  });

  it('reads back what it writes, and a long length uses a multi-byte uvarint', () => {
    const long = 'x'.repeat(299);
    const r = new Reader(flexWriter().string(long).nullableBytes(Buffer.alloc(0)).toBuffer());
    r.flexible = true;
    expect(r.buf.subarray(0, 2).toString('hex')).toBe('ac02');
    expect(r.string()).toBe(long);
    expect(r.nullableBytes()).toEqual(Buffer.alloc(0));
    expect(r.remaining).toBe(0);
  });

  it('tags() writes nothing in a classic version and an empty section (00) in a flexible one', () => {
    expect(new Writer().int8(1).tags().toBuffer().toString('hex')).toBe('01');
    expect(flexWriter().int8(1).tags().toBuffer().toString('hex')).toBe('0100');
  });

  it('writes present tagged fields in tag order with their sizes, and reads them back by tag', () => {
    const w = flexWriter().tags([
      { tag: 0, write: (w) => w.int16(42) },
      { tag: 1, write: undefined },
      { tag: 5, write: (w) => w.string('hi') },
    ]);
    expect(w.toBuffer().toString('hex')).toBe('02' + '00' + '02' + '002a' + '05' + '03' + '036869');
    const seen: [number, unknown][] = [];
    const r = flexReader(w.toBuffer().toString('hex'));
    r.tags((tag, f) => seen.push([tag, tag === 0 ? f.int16() : f.string()]));
    expect(seen).toEqual([
      [0, 42],
      [5, 'hi'],
    ]);
    expect(r.remaining).toBe(0);
  });

  it('refuses tags out of order, and tagged fields that run past the data', () => {
    expect(() => flexWriter().tags([{ tag: 2, write: (w) => w.int8(0) }, { tag: 1, write: (w) => w.int8(0) }])).toThrow(/increasing/);
    expect(() => flexReader('02' + '0201ff' + '0101ff').tags()).toThrow(CorruptDataError);
    expect(() => flexReader('01' + '0005ff').tags()).toThrow(CorruptDataError);
  });

  it('a null where a compact string is required is corrupt data', () => {
    expect(() => flexReader('00').string()).toThrow(CorruptDataError);
    expect(flexReader('00').nullableString()).toBeNull();
    expect(flexReader('00').nullableArray((r) => r.int8())).toBeNull();
  });
});
