import { describe, expect, it } from 'vitest';
import { FrameReader, FrameSizeError } from './frame-reader.js';

function frame(payload: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(payload.length);
  return Buffer.concat([size, payload]);
}

const payloads = [Buffer.from('hello'), Buffer.alloc(0), Buffer.from('a longer third frame payload'), Buffer.alloc(300, 7)];
const stream = Buffer.concat(payloads.map(frame));

describe('FrameReader', () => {
  it('yields the same frames however the stream is split in two', () => {
    for (const reuseBuffer of [false, true]) {
      for (let cut = 0; cut <= stream.length; cut++) {
        const reader = new FrameReader({ reuseBuffer });
        const out = [...reader.push(stream.subarray(0, cut)), ...reader.push(stream.subarray(cut))].map((f) => Buffer.from(f));
        expect(out).toEqual(payloads);
        expect(reader.bufferedBytes).toBe(0);
      }
    }
  });

  it('handles a stream delivered one byte at a time', () => {
    const reader = new FrameReader();
    const out: Buffer[] = [];
    for (let i = 0; i < stream.length; i++) out.push(...reader.push(stream.subarray(i, i + 1)));
    expect(out).toEqual(payloads);
  });

  it('returns frames contained in one chunk as views of that chunk', () => {
    const chunk = Buffer.from(stream);
    const [first] = new FrameReader().push(chunk);
    expect(first!.buffer).toBe(chunk.buffer);
  });

  it('rejects a frame above maxFrameBytes before buffering it', () => {
    const reader = new FrameReader({ maxFrameBytes: 100 });
    expect(reader.push(frame(Buffer.alloc(100)))).toHaveLength(1);
    const err = (() => {
      try {
        reader.push(frame(Buffer.alloc(101)).subarray(0, 6));
      } catch (e) {
        return e;
      }
      return null;
    })();
    expect(err).toBeInstanceOf(FrameSizeError);
    expect(err).toMatchObject({ size: 101, maxFrameBytes: 100 });
  });

  it('allocates as bytes arrive, not on the size header: a 90 MB announcement with 10 bytes sent costs nothing like 90 MB', () => {
    const reader = new FrameReader();
    const header = Buffer.alloc(4);
    header.writeInt32BE(90 * 1024 * 1024);
    const before = process.memoryUsage().arrayBuffers;
    const pending: FrameReader[] = [];
    // Twenty such connections: an allocation on the header would hold 1.8 GB here.
    for (let i = 0; i < 20; i++) {
      const r = new FrameReader();
      expect(r.push(Buffer.concat([header, Buffer.alloc(10, 1)]))).toEqual([]);
      pending.push(r);
    }
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(16 * 1024 * 1024);
    expect(pending[0]!.bufferedBytes).toBe(10);
    // The frame still completes byte-exact once the rest arrives in pieces.
    const payload = Buffer.alloc(200_000);
    for (let i = 0; i < payload.length; i++) payload[i] = i % 251;
    const f = frame(payload);
    const got: Buffer[] = [];
    for (let off = 0; off < f.length; off += 7_777) got.push(...reader.push(f.subarray(off, off + 7_777)));
    expect(got).toHaveLength(1);
    expect(got[0]!.equals(payload)).toBe(true);
  });

  it('rejects a negative size, even when split', () => {
    const reader = new FrameReader();
    expect(reader.push(Buffer.from([0xff, 0xff]))).toEqual([]);
    expect(() => reader.push(Buffer.from([0xff, 0xfe]))).toThrow(FrameSizeError);
  });
});
