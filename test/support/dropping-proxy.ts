// Test support: a TCP proxy in front of one broker that can swallow Produce answers. The broker has appended the
// batch, the client never hears so: it must retry, and only an idempotent producer's retry cannot write twice.
import net from 'node:net';

const PRODUCE = 0;

export class DroppingProxy {
  readonly #server: net.Server;
  readonly #sockets = new Set<net.Socket>();
  /** Asked for every Produce answer: true cuts the client's connection instead of forwarding it. */
  dropProduceResponse: () => boolean = () => false;
  dropped = 0;

  private constructor(server: net.Server) {
    this.#server = server;
  }

  /** Listens on `port` and forwards to `target` (which may start listening later). */
  static async start(port: number, target: { host: string; port: number }): Promise<DroppingProxy> {
    const server = net.createServer();
    const proxy = new DroppingProxy(server);
    server.on('connection', (client) => proxy.#pipe(client, target));
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve());
    });
    return proxy;
  }

  #pipe(client: net.Socket, target: { host: string; port: number }): void {
    const upstream = net.connect(target.port, target.host);
    this.#sockets.add(client).add(upstream);
    const apiKeys = new Map<number, number>();
    const close = () => {
      client.destroy();
      upstream.destroy();
      this.#sockets.delete(client);
      this.#sockets.delete(upstream);
    };
    for (const s of [client, upstream]) {
      s.on('error', close);
      s.on('close', close);
    }
    // Requests: size i32 | api_key i16 | api_version i16 | correlation_id i32 ... forwarded as they are.
    let requestBuf = Buffer.alloc(0);
    client.on('data', (chunk: Buffer) => {
      requestBuf = Buffer.concat([requestBuf, chunk]);
      while (requestBuf.length >= 12) {
        const size = requestBuf.readInt32BE(0);
        if (requestBuf.length < 4 + size) break;
        apiKeys.set(requestBuf.readInt32BE(8), requestBuf.readInt16BE(4));
        requestBuf = requestBuf.subarray(4 + size);
      }
      upstream.write(chunk);
    });
    // Answers: size i32 | correlation_id i32 ...; forwarded frame by frame so one can be swallowed.
    let responseBuf = Buffer.alloc(0);
    upstream.on('data', (chunk: Buffer) => {
      responseBuf = Buffer.concat([responseBuf, chunk]);
      while (responseBuf.length >= 8) {
        const size = responseBuf.readInt32BE(0);
        if (responseBuf.length < 4 + size) break;
        const frame = responseBuf.subarray(0, 4 + size);
        responseBuf = responseBuf.subarray(4 + size);
        const correlationId = frame.readInt32BE(4);
        const apiKey = apiKeys.get(correlationId);
        apiKeys.delete(correlationId);
        if (apiKey === PRODUCE && this.dropProduceResponse()) {
          this.dropped++;
          close();
          return;
        }
        client.write(frame);
      }
    });
  }

  async close(): Promise<void> {
    for (const s of this.#sockets) s.destroy();
    await new Promise<void>((resolve) => this.#server.close(() => resolve()));
  }
}
