// Kafka frames on the wire for the benches that capture or replay traffic (broker-alone.mjs, single-broker.mjs):
// a splitter of size-prefixed frames and a recording TCP proxy in front of a broker.
import net from 'node:net';

/**
 * Calls `onFrame(frame)` for every size-prefixed Kafka frame (size included) in a byte stream. Chunks are joined
 * once a frame is complete (not on every chunk), so multi-megabyte Fetch responses cost one copy, not one per chunk.
 * `frame` may share memory with the stream's buffers: copy what is kept.
 */
export function frameSplitter(onFrame) {
  let chunks = [];
  let have = 0;
  let need = 4; // bytes to wait for before looking again: the next size field, or the whole next frame
  return (chunk) => {
    chunks.push(chunk);
    have += chunk.length;
    if (have < need) return;
    const buf = chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, have);
    let at = 0;
    while (buf.length - at >= 4) {
      const size = buf.readInt32BE(at);
      if (buf.length - at < 4 + size) break;
      onFrame(buf.subarray(at, at + 4 + size));
      at += 4 + size;
    }
    const rest = buf.subarray(at);
    chunks = rest.length ? [rest] : [];
    have = rest.length;
    need = rest.length >= 4 ? 4 + rest.readInt32BE(0) : 4;
  };
}

/**
 * A TCP proxy on 127.0.0.1:`port` to 127.0.0.1:`upstreamPort` that passes bytes through unchanged and hands every
 * request frame to `onRequest(frame, conn)` and, when given, every response frame to `onResponse(frame, conn)`;
 * `conn` is one object per client connection, for the caller's state. Resolves once listening with `close()`,
 * which drops the connections and stops listening (the port is free again when it resolves).
 */
export async function recordingProxy(port, upstreamPort, { onRequest, onResponse }) {
  const open = new Set();
  const server = net.createServer((client) => {
    open.add(client);
    const conn = {};
    const upstream = net.connect({ host: '127.0.0.1', port: upstreamPort });
    const requests = frameSplitter((frame) => onRequest(frame, conn));
    client.on('data', (d) => {
      requests(d);
      upstream.write(d);
    });
    if (onResponse) {
      const responses = frameSplitter((frame) => onResponse(frame, conn));
      upstream.on('data', (d) => {
        responses(d);
        if (!client.write(d)) upstream.pause();
      });
      client.on('drain', () => upstream.resume());
    } else {
      upstream.pipe(client);
    }
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => {
      open.delete(client);
      upstream.destroy();
    });
  });
  await new Promise((r) => server.listen(port, '127.0.0.1', r));
  return {
    close: () => {
      for (const c of open) c.destroy();
      return new Promise((r) => server.close(() => r()));
    },
  };
}
