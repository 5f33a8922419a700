// A server that costs (almost) nothing: it answers every request from a recording of what a broker answered to
// the same request, for bench/single-broker.mjs's kcat consume ceiling. A separate process, so it shares no event
// loop with the bench.
//
//   node bench/lib/replay-server.mjs <recording> <port>
//
// The recording is a sequence of entries [u32 key length][key][u32 delay ms][u32 response length][response frame];
// a key is a request frame without its size and correlation id (api key, version, client id and body, byte for
// byte). A request is answered with the response recorded for its key, correlation id rewritten; a key recorded
// several times is answered with its responses in recorded order, then the last again. `delay ms` holds an answer
// back (an empty Fetch: the broker waited max.wait.ms for data that could not come, and so would any broker);
// answers leave each connection in request order. A request not in the recording is logged and the process
// exits 2, dropping every connection: the bench notices and fails instead of measuring something else.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { frameSplitter } from './proxy.mjs';

const [file, port] = process.argv.slice(2);
const data = readFileSync(file);
const answers = new Map(); // key -> { responses: [{ frame, delayMs }], served }
for (let at = 0; at < data.length; ) {
  const keyLength = data.readUInt32BE(at);
  const key = data.toString('latin1', at + 4, at + 4 + keyLength);
  at += 4 + keyLength;
  const delayMs = data.readUInt32BE(at);
  const length = data.readUInt32BE(at + 4);
  const frame = data.subarray(at + 8, at + 8 + length);
  at += 8 + length;
  const a = answers.get(key) ?? { responses: [], served: 0 };
  a.responses.push({ frame, delayMs });
  answers.set(key, a);
}

const keyOf = (request) => request.toString('latin1', 4, 8) + request.toString('latin1', 12);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

net.createServer((socket) => {
  socket.setNoDelay(true);
  let tail = Promise.resolve(); // answers in request order, also when one is held back
  socket.on('data', frameSplitter((request) => {
    const a = answers.get(keyOf(request));
    if (!a) {
      console.error(`replay-server: no recorded answer for api key ${request.readInt16BE(4)} v${request.readInt16BE(6)}: ${request.subarray(12, 140).toString('hex')}`);
      process.exit(2);
    }
    const { frame, delayMs } = a.responses[Math.min(a.served++, a.responses.length - 1)];
    const head = Buffer.from(frame.subarray(0, 8)); // size and correlation id; the rest goes out uncopied
    request.copy(head, 4, 8, 12);
    tail = tail.then(async () => {
      if (delayMs > 0) await sleep(delayMs);
      socket.cork();
      socket.write(head);
      socket.write(frame.subarray(8));
      socket.uncork();
    });
  }));
  socket.on('error', () => {});
}).listen(Number(port), '127.0.0.1', () => console.log('ready'));
