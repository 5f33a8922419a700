// A server that costs (almost) nothing: it answers every request from a recording of what a broker answered to
// the same request, for bench/single-broker.mjs's kcat consume ceiling. A separate process, so it shares no event
// loop with the bench.
//
//   node bench/lib/replay-server.mjs <recording> <port>
//
// The recording is a sequence of [u32 length][request frame][u32 length][response frame] pairs. A request equal to
// a recorded one byte for byte, but for its correlation id, is answered with the recorded response, correlation id
// rewritten (a request recorded several times: its responses in recorded order, then the last again). A Fetch
// not recorded as a whole (with several partitions, which of them a fetch includes depends on timing) is answered
// partition by partition: each with the partition's response recorded for its fetch offset, encoded anew; a
// Metadata request not recorded as such (librdkafka asks for brokers only, or all topics, now and then) is
// answered with the recorded brokers and the recorded metadata of the topics it names. An
// empty Fetch answer (no whole record batch: the end of the log) is held back for the request's max wait, as the
// broker did, since no server can answer it sooner with data that is not there; answers leave each connection in
// request order. Anything else is logged and the process exits 2, dropping every connection: the bench notices
// and fails instead of measuring something else. On SIGTERM it prints {"exact": n, "composed": n} and exits.
import { readFileSync } from 'node:fs';
import net from 'node:net';
import { decodeRequestHeader, decodeResponseHeader, encodeResponseHeader, Fetch, Metadata, Reader, wholeBatchesLength, writeFrame } from '@gregor/protocol';
import { frameSplitter } from './proxy.mjs';

const [file, port] = process.argv.slice(2);
const keyOf = (request) => request.toString('latin1', 4, 8) + request.toString('latin1', 12);
const partKey = (topic, partition, offset) => `${topic}\0${partition}\0${offset}`;
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A request frame of `api` decoded: its codec and body. */
function decodeRequest(api, request) {
  const r = new Reader(request, 4);
  const codec = api.versions.get(decodeRequestHeader(r).apiVersion);
  r.flexible = codec.flexible;
  if (codec.flexible) r.skipTaggedFields();
  return { codec, body: codec.decodeRequest(r) };
}
function decodeResponse(codec, frame) {
  const r = new Reader(frame, 4);
  r.flexible = codec.flexible;
  decodeResponseHeader(r, codec.flexible);
  return codec.decodeResponse(r);
}
/** A response frame's chunks: header with the request's correlation id, then `response` encoded. */
const encodeAnswer = (codec, request, response) => writeFrame((w) => {
  encodeResponseHeader(w, request.readInt32BE(8), codec.flexible);
  w.flexible = codec.flexible;
  codec.encodeResponse(w, response);
});
const isEmpty = (response) => response.responses.every((t) => t.partitionResponses.every((p) => !p.recordSet || wholeBatchesLength(p.recordSet) === 0));

const served = { exact: 0, composed: 0 };
const exact = new Map(); // request key -> { answers: [{ frame, delayMs }], served }
const partitions = new Map(); // topic, partition, fetch offset -> that partition's response
let metadata; // the last recorded Metadata response
const topics = new Map(); // name -> its recorded Metadata
const data = readFileSync(file);
for (let at = 0; at < data.length; ) {
  const request = data.subarray(at + 4, at + 4 + data.readUInt32BE(at));
  at += 4 + request.length;
  const frame = data.subarray(at + 4, at + 4 + data.readUInt32BE(at));
  at += 4 + frame.length;
  let delayMs = 0;
  if (request.readInt16BE(4) === Metadata.apiKey) {
    metadata = decodeResponse(decodeRequest(Metadata, request).codec, frame);
    for (const t of metadata.topics) topics.set(t.name, t);
  }
  if (request.readInt16BE(4) === Fetch.apiKey) {
    const { codec, body } = decodeRequest(Fetch, request);
    const response = decodeResponse(codec, frame);
    if (isEmpty(response)) delayMs = body.maxWaitMs;
    for (const t of body.topics) {
      for (const p of t.partitions) {
        const got = response.responses.find((x) => x.topic === t.topic)?.partitionResponses.find((x) => x.partition === p.partition);
        const k = partKey(t.topic, p.partition, p.fetchOffset);
        if (got && !partitions.has(k)) partitions.set(k, got);
      }
    }
  }
  const e = exact.get(keyOf(request)) ?? { answers: [], served: 0 };
  e.answers.push({ frame, delayMs });
  exact.set(keyOf(request), e);
}

/** A Fetch answered partition by partition from the recording: { chunks, delayMs }, or null. */
function composeFetch(request) {
  const { codec, body } = decodeRequest(Fetch, request);
  const responses = [];
  for (const t of body.topics) {
    const partitionResponses = t.partitions.map((p) => partitions.get(partKey(t.topic, p.partition, p.fetchOffset)));
    if (partitionResponses.includes(undefined)) return null;
    responses.push({ topic: t.topic, partitionResponses });
  }
  const response = { throttleTimeMs: 0, errorCode: 0, sessionId: 0, responses };
  return { chunks: encodeAnswer(codec, request, response), delayMs: isEmpty(response) ? body.maxWaitMs : 0 };
}

/** A Metadata request answered with the recorded brokers and topics: { chunks, delayMs: 0 }, or null. */
function composeMetadata(request) {
  const { codec, body } = decodeRequest(Metadata, request);
  const names = body.topics?.map((t) => t.name) ?? [...topics.keys()];
  if (!metadata || !names.every((n) => topics.has(n))) return null;
  return { chunks: encodeAnswer(codec, request, { ...metadata, topics: names.map((n) => topics.get(n)) }), delayMs: 0 };
}
const compose = new Map([[Fetch.apiKey, composeFetch], [Metadata.apiKey, composeMetadata]]);

/** The answer to a request from the recording: { chunks, delayMs }, or null. */
function answer(request) {
  const e = exact.get(keyOf(request));
  if (e) {
    const { frame, delayMs } = e.answers[Math.min(e.served++, e.answers.length - 1)];
    const head = Buffer.from(frame.subarray(0, 8)); // size and correlation id; the rest goes out uncopied
    request.copy(head, 4, 8, 12);
    served.exact++;
    return { chunks: [head, frame.subarray(8)], delayMs };
  }
  const composed = compose.get(request.readInt16BE(4))?.(request) ?? null;
  if (composed) served.composed++;
  return composed;
}

net.createServer((socket) => {
  socket.setNoDelay(true);
  let tail = Promise.resolve(); // answers in request order, also when one is held back
  socket.on('data', frameSplitter((request) => {
    const a = answer(request);
    if (!a) {
      console.error(`replay-server: no recorded answer for api key ${request.readInt16BE(4)} v${request.readInt16BE(6)}: ${request.subarray(12, 200).toString('hex')}`);
      process.exit(2);
    }
    tail = tail.then(async () => {
      if (a.delayMs > 0) await sleep(a.delayMs);
      socket.cork();
      for (const c of a.chunks) socket.write(c);
      socket.uncork();
    });
  }));
  socket.on('error', () => {});
}).listen(Number(port), '127.0.0.1', () => console.log('ready'));
process.once('SIGTERM', () => {
  console.log(JSON.stringify(served));
  process.exit(0);
});
