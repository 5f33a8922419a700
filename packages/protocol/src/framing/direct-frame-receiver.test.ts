import { FrameSizeError } from './frame-reader.js';
import { describe, expect, it } from 'vitest';
import { DirectFrameReceiver } from './direct-frame-receiver.js';

/** A socket's reads: each copies at most `maxRead` bytes (and at most what the buffer holds) into nextBuffer(). */
function receiveAll(stream: Buffer, maxRead: (i: number) => number): Buffer[] {
  const receiver = new DirectFrameReceiver(10 * 1024 * 1024);
  const frames: Buffer[] = [];
  let pos = 0;
  for (let i = 0; pos < stream.length; i++) {
    const target = receiver.nextBuffer();
    const n = Math.min(target.length, maxRead(i), stream.length - pos);
    expect(n).toBeGreaterThan(0);
    stream.copy(target, 0, pos, pos + n);
    pos += n;
    frames.push(...receiver.onRead(n));
  }
  return frames;
}

function framed(payloads: Buffer[]): Buffer {
  return Buffer.concat(payloads.flatMap((p) => [Buffer.from(Uint32Array.of(p.length).buffer).reverse(), p]));
}

describe('DirectFrameReceiver', () => {
  const sizes = [0, 1, 3, 100, 65_532, 65_533, 65_536, 70_000, 1_000_000, 5, 2_500_000, 17, 0, 64_000];
  const payloads = sizes.map((n, i) => Buffer.alloc(n, i + 1).fill(i * 7, 0, Math.min(n, 3)));

  for (const [name, maxRead] of [
    ['whole reads', () => 1 << 30],
    ['64 KiB reads', () => 65_536],
    ['odd small reads', (i: number) => 1 + ((i * 7919) % 5000)],
    ['1-byte reads', () => 1],
  ] as const) {
    it(`splits frames of every size exactly, with ${name}, leaving earlier frames intact`, () => {
      const stream = framed(payloads);
      const frames = receiveAll(stream, name === '1-byte reads' ? (i) => (i < 20_000 ? 1 : 1 << 30) : maxRead);
      expect(frames.map((f) => f.length)).toEqual(sizes);
      frames.forEach((f, i) => expect(f.equals(payloads[i]!)).toBe(true)); // checked after all reads: views were not overwritten
    });
  }

  it('reads small frames, one per read, on into the same scratch buffer instead of a fresh one per read', () => {
    const payloads = Array.from({ length: 1000 }, (_, i) => Buffer.alloc(100, i % 251));
    const receiver = new DirectFrameReceiver(1 << 20);
    const frames: Buffer[] = [];
    for (const one of payloads) {
      const bytes = framed([one]);
      bytes.copy(receiver.nextBuffer());
      frames.push(...receiver.onRead(bytes.length));
    }
    frames.forEach((f, i) => expect(f.equals(payloads[i]!)).toBe(true));
    // 104 bytes a frame: a 64 KiB scratch buffer holds ~470 of them before its tail is too short (was one per frame).
    expect(new Set(frames.map((f) => f.buffer)).size).toBeLessThanOrEqual(3);
  });

  it('reads a large frame straight into a buffer of its size', () => {
    const receiver = new DirectFrameReceiver(1 << 30);
    const stream = framed([Buffer.alloc(300_000, 9)]);
    let target = receiver.nextBuffer();
    stream.copy(target, 0, 0, 1000);
    expect(receiver.onRead(1000)).toEqual([]);
    target = receiver.nextBuffer();
    expect(target.length).toBe(300_000 - 996); // the rest of the frame, no more
    stream.copy(target, 0, 1000);
    const [frame] = receiver.onRead(target.length);
    expect(frame!.length).toBe(300_000);
    expect(frame!.buffer).toBe(target.buffer); // the socket wrote into the frame itself
  });

  it('takes a large frame\'s memory from `allocate`, which sees the bytes arrived so far, or a fresh buffer when it declines', () => {
    const pooled = Buffer.alloc(512 * 1024);
    const heads: Buffer[] = [];
    const receiver = new DirectFrameReceiver(1 << 30, (_size, head) => {
      heads.push(Buffer.from(head));
      return head.length >= 2 && head.readInt16BE(0) === 0 ? pooled : undefined; // Produce (api key 0) only
    });
    const produce = Buffer.alloc(300_000, 5);
    produce.writeInt16BE(0, 0);
    const metadata = Buffer.alloc(200_000, 6);
    metadata.writeInt16BE(3, 0);
    const stream = framed([produce, metadata]);
    const frames: Buffer[] = [];
    for (let pos = 0; pos < stream.length; ) {
      const target = receiver.nextBuffer();
      const n = Math.min(target.length, 50_000, stream.length - pos);
      stream.copy(target, 0, pos, pos + n);
      pos += n;
      frames.push(...receiver.onRead(n));
    }
    expect(heads.map((h) => h.readInt16BE(0))).toEqual([0, 3]);
    expect(frames[0]!.buffer).toBe(pooled.buffer);
    expect(frames[0]!.length).toBe(300_000); // a view of the pooled buffer, the frame's size
    expect(frames[0]!.equals(produce)).toBe(true);
    expect(frames[1]!.buffer).not.toBe(pooled.buffer);
    expect(frames[1]!.equals(metadata)).toBe(true);
  });

  it('refuses a negative or oversized frame size', () => {
    const receiver = new DirectFrameReceiver(1000);
    const target = receiver.nextBuffer();
    target.writeInt32BE(1001, 0);
    expect(() => receiver.onRead(4)).toThrow(FrameSizeError);
    const other = new DirectFrameReceiver(1000);
    other.nextBuffer().writeInt32BE(-1, 0);
    expect(() => other.onRead(4)).toThrow(FrameSizeError);
    const raised = new DirectFrameReceiver(1000);
    raised.setMaxFrameBytes(2000); // as a server does after authentication
    raised.nextBuffer().writeInt32BE(1001, 0);
    expect(raised.onRead(4)).toEqual([]);
  });
});
