import { afterEach, describe, expect, it } from 'vitest';
import net from 'node:net';
import { silentLogger } from '@gregor/common';
import { ReadBufferPool } from '@gregor/storage';
import { SocketServer, type FrameHandler } from './socket-server.js';

const RESPONSE_BYTES = 4 * 1024 * 1024;
let server: SocketServer | null = null;
let client: net.Socket | null = null;
afterEach(async () => {
  client?.destroy();
  await server?.stop();
});

/**
 * Each response is a pooled buffer filled with its request's number (as a Fetch read fills one from the log), handed
 * back by the socket server's onWritten. A buffer reused before the socket flushed it would show up as a response
 * holding another request's bytes.
 */
describe('SocketServer with pooled response buffers', () => {
  it('gives a buffer back only once its response is flushed: a client that stops reading gets every response intact', async () => {
    const pool = new ReadBufferPool();
    let n = 0;
    const handler: FrameHandler = () => {
      const buf = pool.acquire(RESPONSE_BYTES);
      buf.fill(n++ % 256, 0, RESPONSE_BYTES);
      const size = Buffer.alloc(4);
      size.writeInt32BE(RESPONSE_BYTES);
      return [size, buf.subarray(0, RESPONSE_BYTES)];
    };
    server = new SocketServer({ listeners: [{ listenerName: 'CLIENT', host: '127.0.0.1', port: 0 }], maxRequestBytes: 1024, handler, logger: silentLogger(), onWritten: (c) => pool.release(c) });
    await server.start();
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect({ host: '127.0.0.1', port: server!.boundPort('CLIENT') }, () => resolve(s));
      s.once('error', reject);
    });
    client = socket;
    socket.pause();
    const request = Buffer.alloc(12);
    request.writeInt32BE(8);
    request.writeInt16BE(0, 4); // Produce's api key: not held back like a second Fetch
    // Every response has the same size: count them by bytes, check them all at the end.
    const chunks: Buffer[] = [];
    let bytes = 0;
    const frameBytes = 4 + RESPONSE_BYTES;
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      bytes += chunk.length;
    });
    const received = { get length() { return Math.floor(bytes / frameBytes); } };
    const waitFor = async (count: number) => {
      for (let i = 0; i < 500 && received.length < count; i++) await new Promise((r) => setTimeout(r, 20));
      expect(received.length).toBe(count);
    };

    // Phase 1: 6 responses of 4 MiB while the client reads nothing: more than loopback buffers hold, so some wait.
    for (let i = 0; i < 6; i++) socket.write(request);
    await new Promise((r) => setTimeout(r, 300));
    expect(pool.stats.acquired).toBe(6);
    expect(pool.stats.released).toBeLessThan(6); // not all flushed yet, so not all given back
    socket.resume();
    await waitFor(6);
    // Phase 2: one request at a time; each response's buffer was flushed before the next read, so they are reused.
    for (let i = 6; i < 12; i++) {
      socket.write(request);
      await waitFor(i + 1);
    }
    expect(pool.stats.reused).toBeGreaterThan(0);
    const all = Buffer.concat(chunks);
    expect(all.length).toBe(12 * frameBytes);
    for (let i = 0; i < 12; i++) {
      const frame = all.subarray(i * frameBytes, (i + 1) * frameBytes);
      expect(frame.readInt32BE(0)).toBe(RESPONSE_BYTES);
      expect(frame.subarray(4).equals(Buffer.alloc(RESPONSE_BYTES, i)), `response ${i} holds only its own bytes`).toBe(true);
    }
  });
});

describe('SocketServer with pooled request buffers (Produce)', () => {
  const REQUEST_BYTES = 300 * 1024;
  /** A request frame of `apiKey` whose body is REQUEST_BYTES of the byte `fill`. */
  const requestFrame = (apiKey: number, fill: number) => {
    const frame = Buffer.alloc(4 + REQUEST_BYTES, fill);
    frame.writeInt32BE(REQUEST_BYTES);
    frame.writeInt16BE(apiKey, 4);
    return frame;
  };

  it('assembles a Produce request in a pooled buffer and takes it back only once answered: slow handlers see their own bytes', async () => {
    const pool = new ReadBufferPool();
    const seen: { fill: number; intact: boolean }[] = [];
    const handler: FrameHandler = async (frame) => {
      const fill = frame[2]!; // after the api key
      await new Promise((r) => setTimeout(r, 20)); // answered later, while further requests arrive
      seen.push({ fill, intact: frame.subarray(2).equals(Buffer.alloc(REQUEST_BYTES - 2, fill)) });
      const response = Buffer.alloc(8);
      response.writeInt32BE(4);
      return [response];
    };
    server = new SocketServer({ listeners: [{ listenerName: 'CLIENT', host: '127.0.0.1', port: 0 }], maxRequestBytes: 1 << 20, handler, logger: silentLogger(), requestPool: pool });
    await server.start();
    const socket = await new Promise<net.Socket>((resolve, reject) => {
      const s = net.connect({ host: '127.0.0.1', port: server!.boundPort('CLIENT') }, () => resolve(s));
      s.once('error', reject);
    });
    client = socket;
    let answered = 0;
    socket.on('data', (chunk: Buffer) => (answered += chunk.length / 8));
    const waitFor = async (count: number) => {
      for (let i = 0; i < 500 && answered < count; i++) await new Promise((r) => setTimeout(r, 10));
      expect(answered).toBe(count);
    };
    // 6 Produce requests pipelined (each spans many socket reads), then 4 one at a time.
    for (let i = 1; i <= 6; i++) socket.write(requestFrame(0, i));
    await waitFor(6);
    for (let i = 7; i <= 10; i++) {
      socket.write(requestFrame(0, i));
      await waitFor(i);
    }
    expect(seen.map((s) => s.fill)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(seen.every((s) => s.intact)).toBe(true);
    expect(pool.stats.acquired).toBe(10);
    expect(pool.stats.released).toBe(10);
    expect(pool.stats.reused).toBeGreaterThanOrEqual(4);
    // Other requests (here a Metadata of the same size) are not pooled: their handlers may keep their bytes.
    socket.write(requestFrame(3, 11));
    await waitFor(11);
    expect(pool.stats.acquired).toBe(10);
  });
});
