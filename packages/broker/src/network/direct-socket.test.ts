import net from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { withDirectReads } from './direct-socket.js';

describe('withDirectReads', () => {
  let server: net.Server | undefined;
  afterEach(() => server?.close());

  it('moves an accepted socket to one reading into the caller\'s memory: bytes intact and in order, pause holds reads back, writes and a remote close still work', async () => {
    const memory = Buffer.alloc(16 * 1024);
    const received: Buffer[] = [];
    let moved: net.Socket | null = null;
    const movedReady = new Promise<net.Socket>((resolve) => {
      server = net.createServer({ pauseOnConnect: true }, (accepted) => {
        moved = withDirectReads(accepted, {
          buffer: () => memory,
          callback: (n, buf) => {
            expect(buf).toBe(memory);
            received.push(Buffer.from(memory.subarray(0, n)));
            return true;
          },
        });
        resolve(moved!);
      });
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const client = net.connect((server!.address() as net.AddressInfo).port, '127.0.0.1');
    const socket = await movedReady;
    expect(socket).not.toBeNull();

    const payload = Buffer.alloc(1024 * 1024);
    for (let i = 0; i < payload.length; i++) payload[i] = (i * 7) & 0xff;
    client.write(payload);
    const total = () => received.reduce((n, b) => n + b.length, 0);
    for (let i = 0; i < 500 && total() < payload.length; i++) await new Promise((r) => setTimeout(r, 10));
    expect(Buffer.concat(received).equals(payload)).toBe(true);
    expect(received.length).toBeGreaterThan(1); // at most 16 KiB per read

    // Paused, it reads nothing; resumed, what was sent meanwhile arrives.
    socket.pause();
    const before = total();
    client.write(Buffer.from('after the pause'));
    await new Promise((r) => setTimeout(r, 100));
    expect(total()).toBe(before);
    socket.resume();
    for (let i = 0; i < 100 && total() === before; i++) await new Promise((r) => setTimeout(r, 10));
    expect(Buffer.concat(received).subarray(before).toString()).toBe('after the pause');

    const echoed = new Promise<string>((resolve) => client.once('data', (d) => resolve(d.toString())));
    socket.write('answer');
    expect(await echoed).toBe('answer');
    const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
    client.destroy();
    await closed;
  });

  it('leaves a socket that is already destroyed alone', async () => {
    const accepted = new Promise<net.Socket>((resolve) => {
      server = net.createServer({ pauseOnConnect: true }, resolve);
    });
    await new Promise<void>((r) => server!.listen(0, '127.0.0.1', r));
    const client = net.connect((server!.address() as net.AddressInfo).port, '127.0.0.1');
    const socket = await accepted;
    socket.destroy();
    expect(withDirectReads(socket, { buffer: Buffer.alloc(16), callback: () => true })).toBeNull();
    client.destroy();
  });
});
