// Test support: a TCP proxy in front of a broker that passes every byte through unchanged except the
// ApiVersions response, where Produce's advertised minimum version becomes 0.
//
// Why: librdkafka compresses gzip, snappy and lz4 only when the broker's Produce version range includes v0
// (rdkafka_msgset_writer.c checks Produce 0..0 for them, and FindCoordinator v0 for lz4); otherwise it logs
// "Broker does not support compression type" and sends the batch uncompressed. gregor accepts Produce
// v3+ only (RecordBatch v2), so without this kcat never writes those codecs to it. librdkafka still sends
// Produce v7 with RecordBatch v2 (its highest common version): the broker sees exactly what it would from
// a real Kafka deployment, with librdkafka's own codecs. zstd needs Produce v7 / Fetch v10, which gregor has.
import { createServer, connect, type Server, type Socket } from 'node:net';

const API_VERSIONS = 18;
const PRODUCE = 0;

function readUVarint(buf: Buffer, pos: number): [value: number, next: number] {
  let value = 0;
  let shift = 0;
  for (;;) {
    const b = buf[pos++]!;
    value |= (b & 0x7f) << shift;
    if ((b & 0x80) === 0) return [value >>> 0, pos];
    shift += 7;
  }
}

/** Sets Produce's min version to 0 in an ApiVersions response body (response header v0: body at 4). */
function patchApiVersions(frame: Buffer, version: number): void {
  let pos = 4 + 4 + 2; // size, correlation id, error code
  let count: number;
  if (version >= 3) {
    [count, pos] = readUVarint(frame, pos);
    count -= 1;
  } else {
    count = frame.readInt32BE(pos);
    pos += 4;
  }
  for (let i = 0; i < count; i++) {
    if (frame.readInt16BE(pos) === PRODUCE) frame.writeInt16BE(0, pos + 2);
    pos += 6;
    if (version >= 3) {
      let tags: number;
      [tags, pos] = readUVarint(frame, pos);
      for (let t = 0; t < tags; t++) {
        let size: number;
        [, pos] = readUVarint(frame, pos);
        [size, pos] = readUVarint(frame, pos);
        pos += size;
      }
    }
  }
}

/** Splits a byte stream into size-prefixed Kafka frames. */
function framer(onFrame: (frame: Buffer) => void): (chunk: Buffer) => void {
  let pending: Buffer = Buffer.alloc(0);
  return (chunk) => {
    pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
    while (pending.length >= 4 && pending.length >= 4 + pending.readInt32BE(0)) {
      const size = 4 + pending.readInt32BE(0);
      onFrame(pending.subarray(0, size));
      pending = pending.subarray(size);
    }
  };
}

export interface ProduceV0Advertiser {
  port: number;
  close(): Promise<void>;
}

export async function startProduceV0Advertiser(targetPort: number, host = '127.0.0.1'): Promise<ProduceV0Advertiser> {
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const broker = connect(targetPort, host);
    sockets.add(client).add(broker);
    const apiVersionsRequests = new Map<number, number>(); // correlation id -> version
    client.on(
      'data',
      framer((frame) => {
        if (frame.readInt16BE(4) === API_VERSIONS) apiVersionsRequests.set(frame.readInt32BE(8), frame.readInt16BE(6));
        broker.write(frame);
      }),
    );
    broker.on(
      'data',
      framer((frame) => {
        const version = apiVersionsRequests.get(frame.readInt32BE(4));
        if (version !== undefined) {
          apiVersionsRequests.delete(frame.readInt32BE(4));
          const copy = Buffer.from(frame);
          patchApiVersions(copy, version);
          client.write(copy);
        } else client.write(frame);
      }),
    );
    const end = () => {
      client.destroy();
      broker.destroy();
      sockets.delete(client);
      sockets.delete(broker);
    };
    client.on('close', end).on('error', end);
    broker.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(0, host, resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('proxy has no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
