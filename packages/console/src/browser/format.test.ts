import { describe, expect, it } from 'vitest';
import { compact, formatBytes, formatRate, fromBase64, hexDump, isPrintable, parseBrokerList, parseConfigLines, prettyJson, renderValue, toBase64 } from './format.js';

const bytes = (s: string) => new TextEncoder().encode(s);

describe('console formatting', () => {
  it('sizes, rates and compact numbers', () => {
    expect([formatBytes(0), formatBytes(1023), formatBytes(1536), formatBytes(10 * 1024 * 1024), formatBytes(null)]).toEqual(['0 B', '1023 B', '1.50 KiB', '10.0 MiB', '–']);
    expect([compact(0), compact(2.25), compact(1500), compact(2_500_000)]).toEqual(['0', '2.3', '1.5k', '2.5M']);
    expect(formatRate(12.4)).toBe('12/s');
  });

  it('record values as text, pretty JSON or an xxd-style hex dump; base64 both ways', () => {
    const value = bytes('{"id":1,"tags":["a"]}');
    expect(renderValue(value, 'text')).toBe('{"id":1,"tags":["a"]}');
    expect(renderValue(value, 'json')).toBe('{\n  "id": 1,\n  "tags": [\n    "a"\n  ]\n}');
    expect(renderValue(bytes('not json'), 'json')).toBe('not json');
    expect(renderValue(null, 'hex')).toBe('null');
    const raw = new Uint8Array([0, 1, 0x41, 0xff, ...bytes('0123456789abcdef')]);
    expect(hexDump(raw).split('\n')).toEqual([
      '00000000  00 01 41 ff 30 31 32 33  34 35 36 37 38 39 61 62  ..A.0123456789ab',
      '00000010  63 64 65 66                                       cdef',
    ]);
    expect(hexDump(new Uint8Array(40), 16).split('\n').at(-1)).toBe('… 24 more bytes');
    expect(fromBase64(toBase64(raw))).toEqual(raw);
    expect(isPrintable(bytes('héllo\n'))).toBe(true);
    expect(isPrintable(raw)).toBe(false);
    expect(prettyJson('42')).toBe('42');
    expect(prettyJson('')).toBeNull();
  });

  it('config lines and broker lists typed into forms', () => {
    expect(parseConfigLines('retention.ms=1000\n# comment\n\n cleanup.policy = compact ')).toEqual({ 'retention.ms': '1000', 'cleanup.policy': 'compact' });
    expect(() => parseConfigLines('novalue')).toThrow(/Not key=value/);
    expect(parseBrokerList('3, 1 2')).toEqual([3, 1, 2]);
    expect(() => parseBrokerList('1,x')).toThrow(/Not a broker id: x/);
    expect(() => parseBrokerList(' ')).toThrow(/No broker ids/);
  });
});
