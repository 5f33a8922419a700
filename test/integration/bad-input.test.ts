import { existsSync, readdirSync } from 'node:fs';
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorCode } from '@gregor/common';
import { Connection } from '@gregor/client';
import { ApiVersions, CreateTopics, Metadata, Produce, encodeRecordBatch, CompressionType } from '@gregor/protocol';
import { removeDir, startBroker, startZooKeeper, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/** Sends raw bytes; resolves with what came back and whether the broker closed the socket. */
function rawExchange(port: number, bytes: Buffer, waitMs = 300): Promise<{ data: Buffer; closed: boolean }> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    let closed = false;
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', () => {});
    socket.on('close', () => {
      closed = true;
      finish();
    });
    socket.on('connect', () => socket.write(bytes));
    const timer = setTimeout(finish, waitMs);
    let done = false;
    function finish() {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ data: Buffer.concat(chunks), closed });
    }
  });
}

function frame(body: Buffer): Buffer {
  const size = Buffer.alloc(4);
  size.writeInt32BE(body.length);
  return Buffer.concat([size, body]);
}

function header(apiKey: number, version: number, correlationId: number, clientId = 'fuzz'): Buffer {
  const b = Buffer.alloc(10 + clientId.length);
  b.writeInt16BE(apiKey, 0);
  b.writeInt16BE(version, 2);
  b.writeInt32BE(correlationId, 4);
  b.writeInt16BE(clientId.length, 8);
  b.write(clientId, 10);
  return b;
}

/** Deterministic PRNG (mulberry32) so a failing case can be replayed. */
function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** socket.request.max.bytes of the broker under test. */
const MAX_REQUEST = 1024 * 1024;

/**
 * Splits fuzz bytes into the frames the broker will see, completing the last one with zero bytes: every
 * frame then ends, so the broker owes an answer (or a close) for each. A size outside 0..MAX_REQUEST
 * must close the connection; nothing after it is read.
 */
function completeFrames(bytes: Buffer): { stream: Buffer; frames: Buffer[]; badSize: boolean } {
  const frames: Buffer[] = [];
  let rest = bytes;
  const parts: Buffer[] = [];
  while (rest.length > 0) {
    if (rest.length < 4) rest = Buffer.concat([rest, Buffer.alloc(4 - rest.length)]);
    const size = rest.readInt32BE(0);
    if (size < 0 || size > MAX_REQUEST) {
      parts.push(rest.subarray(0, 4));
      return { stream: Buffer.concat(parts), frames, badSize: true };
    }
    const bodyPart = rest.subarray(4, 4 + size);
    const body = bodyPart.length === size ? bodyPart : Buffer.concat([bodyPart, Buffer.alloc(size - bodyPart.length)]);
    frames.push(body);
    parts.push(rest.subarray(0, 4), body);
    rest = rest.subarray(4 + bodyPart.length);
  }
  return { stream: Buffer.concat(parts), frames, badSize: false };
}

/**
 * Sends fuzz bytes (as complete frames) followed by an ApiVersions v0 probe, and waits until the broker
 * either closes the connection or answers the probe. Responses come in request order, so when the probe is
 * answered every frame before it must have been answered too (a Produce may go unanswered: with acks=0
 * Kafka never answers). Neither within 10 s means the broker hung on a frame.
 */
async function fuzzExchange(port: number, bytes: Buffer, probeId: number): Promise<{ kind: 'closed' | 'answered' | 'hung'; detail: string }> {
  const { stream, frames, badSize } = completeFrames(bytes);
  const probe = frame(header(18, 0, probeId, 'probe'));
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = Buffer.alloc(0);
    const correlationIds: number[] = [];
    let done = false;
    const finish = (kind: 'closed' | 'answered' | 'hung', detail: string) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ kind, detail });
    };
    const timer = setTimeout(() => finish('hung', `no answer to the probe and no close within 10 s (${correlationIds.length} responses)`), 10_000);
    socket.on('error', () => {});
    socket.on('close', () => finish('closed', `closed after ${correlationIds.length} responses${badSize ? ' (bad size prefix)' : ''}`));
    socket.on('data', (d: Buffer) => {
      received = Buffer.concat([received, d]);
      while (received.length >= 8 && received.length >= 4 + received.readInt32BE(0)) {
        correlationIds.push(received.readInt32BE(4));
        received = received.subarray(4 + received.readInt32BE(0));
      }
      if (correlationIds.at(-1) !== probeId) return;
      // A frame too short to hold a correlation id cannot be answered: the broker must have closed instead.
      if (frames.some((f) => f.length < 8)) {
        finish('hung', 'probe answered after a frame with no readable header that was neither answered nor closed');
        return;
      }
      // Frames whose header can be read and that are not Produce must each have had their answer, in order.
      const owed = frames.filter((f) => f.length >= 8 && f.readInt16BE(0) !== 0).map((f) => f.readInt32BE(4));
      const answers = correlationIds.slice(0, -1);
      let at = 0;
      for (const id of owed) {
        const found = answers.indexOf(id, at);
        if (found < 0) {
          finish('hung', `probe answered but the frame with correlation id ${id} was not (answers: ${answers.join(',')})`);
          return;
        }
        at = found + 1;
      }
      if (answers.length > frames.length) {
        finish('hung', `${answers.length} answers to ${frames.length} frames`);
        return;
      }
      finish('answered', `${answers.length} answers to ${frames.length} frames`);
    });
    socket.on('connect', () => socket.write(badSize ? stream : Buffer.concat([stream, probe])));
  });
}

describe('bad input never hurts the broker or other clients', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let good: Connection;
  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'socket.request.max.bytes': String(1024 * 1024), 'message.max.bytes': '10000' });
    good = new Connection({ host: '127.0.0.1', port: broker.port, clientId: 'well-behaved' });
    await good.connect();
  });
  afterAll(async () => {
    await good?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  async function stillServes(): Promise<void> {
    const md = await good.send(Metadata, { topics: null });
    expect(md!.brokers.map((b) => b.nodeId)).toEqual([1]);
  }

  it('a frame larger than socket.request.max.bytes closes that connection only', async () => {
    const size = Buffer.alloc(4);
    size.writeInt32BE(2 * 1024 * 1024);
    const r = await rawExchange(broker.port, Buffer.concat([size, Buffer.alloc(100)]));
    expect(r.closed).toBe(true);
    expect(r.data.length).toBe(0);
    await stillServes();
  });

  it('a negative frame size closes the connection', async () => {
    const r = await rawExchange(broker.port, Buffer.from([0xff, 0xff, 0xff, 0xf0, 1, 2, 3]));
    expect(r.closed).toBe(true);
    await stillServes();
  });

  it('an unknown API key closes the connection; an unsupported Metadata version too', async () => {
    expect((await rawExchange(broker.port, frame(header(9999, 0, 1)))).closed).toBe(true);
    expect((await rawExchange(broker.port, frame(header(3, 99, 2)))).closed).toBe(true);
    await stillServes();
  });

  it('ApiVersions of an unknown version gets error 35 in v0 format and the socket stays open', async () => {
    const r = await rawExchange(broker.port, Buffer.concat([frame(header(18, 77, 42)), frame(header(18, 0, 43))]), 500);
    expect(r.closed).toBe(false);
    // First answer: size, correlation 42, error 35, [ {18, min, max} ]
    expect(r.data.readInt32BE(4)).toBe(42);
    expect(r.data.readInt16BE(8)).toBe(ErrorCode.UNSUPPORTED_VERSION);
    expect(r.data.readInt32BE(10)).toBe(1);
    expect(r.data.readInt16BE(14)).toBe(18);
    // Second answer on the same socket: a full v0 ApiVersions.
    const second = 4 + r.data.readInt32BE(0);
    expect(r.data.readInt32BE(second + 4)).toBe(43);
    expect(r.data.readInt16BE(second + 8)).toBe(0);
  });

  it('a frame cut short (truncated body) closes the connection with a log line, nothing else', async () => {
    const full = frame(Buffer.concat([header(3, 1, 5), Buffer.from([0, 0, 0, 5, 0])]));
    // Declares the full size but the body of the Metadata request is malformed (count 5, 1 byte left).
    expect((await rawExchange(broker.port, full)).closed).toBe(true);
    // A size prefix followed by fewer bytes, then the client gives up: the broker just waits, then sees the close.
    const partial = Buffer.concat([Buffer.from([0, 0, 0, 100]), Buffer.alloc(10)]);
    expect((await rawExchange(broker.port, partial, 100)).data.length).toBe(0);
    await stillServes();
  });

  it('fuzz: 400 random frames with a fixed seed; every frame is answered or closes the connection, the broker keeps serving', async () => {
    const random = prng(20261130);
    const apiKeys = [0, 1, 2, 3, 18, 19, 20, 37, 4, 5, 6, 7, 23, 9999];
    const outcomes = { closed: 0, answered: 0 };
    for (let i = 0; i < 400; i++) {
      const bodyLen = Math.floor(random() * 200);
      const body = Buffer.alloc(bodyLen);
      for (let j = 0; j < bodyLen; j++) body[j] = Math.floor(random() * 256);
      const key = apiKeys[Math.floor(random() * apiKeys.length)]!;
      const version = Math.floor(random() * 14) - 1;
      const mode = random();
      let bytes: Buffer;
      if (mode < 0.6) bytes = frame(Buffer.concat([header(key, version, i), body]));
      else if (mode < 0.8) bytes = frame(body);
      else bytes = body; // not even a sane size prefix
      const outcome = await fuzzExchange(broker.port, bytes, 0x7f000000 + i);
      const where = `case ${i} (mode ${mode.toFixed(2)}, ${bytes.length} bytes): ${outcome.detail}`;
      expect(outcome.kind, where).not.toBe('hung');
      outcomes[outcome.kind === 'closed' ? 'closed' : 'answered']++;
    }
    expect(outcomes.closed + outcomes.answered).toBe(400);
    expect(outcomes.closed).toBeGreaterThan(0);
    expect(outcomes.answered).toBeGreaterThan(0);
    await stillServes();
    expect(existsSync(broker.logDir)).toBe(true);
  }, 240_000);

  it('illegal topic names get INVALID_TOPIC_EXCEPTION and never reach the filesystem', async () => {
    const names = ['../escape', 'a/b', '..', '.', 'x'.repeat(250), 'sp ace', ''];
    const md = await good.send(Metadata, { topics: names.map((name) => ({ name })), allowAutoTopicCreation: true });
    for (const t of md!.topics) expect(t.errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    const ct = await good.send(CreateTopics, {
      topics: names.map((name) => ({ name, numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] })),
      timeoutMs: 5000,
      validateOnly: false,
    });
    for (const t of ct!.topics) expect(t.errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    const batch = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: Date.now(), records: [{ key: null, value: Buffer.from('x'), headers: [], timestamp: Date.now() }] });
    const pr = await good.send(Produce, {
      transactionalId: null,
      acks: 1,
      timeoutMs: 5000,
      topicData: names.map((name) => ({ name, partitionData: [{ index: 0, records: batch }] })),
    });
    for (const t of pr!.responses) expect(t.partitionResponses[0]!.errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
    expect(readdirSync(broker.logDir).filter((d) => d.includes('escape') || d.startsWith('a'))).toEqual([]);
    expect(existsSync(`${broker.logDir}/../escape-0`)).toBe(false);
  });

  it('a batch above message.max.bytes gets MESSAGE_TOO_LARGE; a bad CRC gets CORRUPT_MESSAGE; two batches in one v3+ partition INVALID_RECORD; the log stays intact', async () => {
    await good.send(CreateTopics, { topics: [{ name: 'guarded', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }], timeoutMs: 5000 });
    const now = Date.now();
    const small = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: now, records: [{ key: null, value: Buffer.from('ok'), headers: [], timestamp: now }] });
    const big = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: now, records: [{ key: null, value: Buffer.alloc(20_000, 1), headers: [], timestamp: now }] });
    const corrupt = Buffer.from(small);
    corrupt[corrupt.length - 1] ^= 0xff;
    const send = (records: Buffer) =>
      good.send(Produce, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'guarded', partitionData: [{ index: 0, records }] }] });
    expect((await send(small))!.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 0 });
    expect((await send(big))!.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.MESSAGE_TOO_LARGE);
    expect((await send(corrupt))!.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.CORRUPT_MESSAGE);
    expect((await send(small))!.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 1 });
    // Produce v3+ carries exactly one batch per partition (Kafka's ProduceRequest.validateRecords): two are refused whole.
    const two = await good.send(Produce, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: 'guarded', partitionData: [{ index: 0, records: Buffer.concat([small, small]) }] }] }, { version: 8 });
    expect(two!.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: ErrorCode.INVALID_RECORD, baseOffset: -1, errorMessage: 'Produce requests with version 8 are only allowed to contain exactly one record batch' });
    expect((await send(small))!.responses[0]!.partitionResponses[0]).toMatchObject({ errorCode: 0, baseOffset: 2 });
    // v3 needs a client software name and version matching KIP-511's pattern (an empty one gets INVALID_REQUEST).
    const versions = await good.send(ApiVersions, { clientSoftwareName: 'gregor-test', clientSoftwareVersion: '1.0' });
    expect(versions!.errorCode).toBe(0);
  });

  it('clients cannot write to internal topics', async () => {
    const now = Date.now();
    const batch = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: now, records: [{ key: Buffer.from('k'), value: Buffer.from('v'), headers: [], timestamp: now }] });
    const r = await good.send(Produce, { transactionalId: null, acks: 1, timeoutMs: 5000, topicData: [{ name: '__consumer_offsets', partitionData: [{ index: 0, records: batch }] }] });
    expect(r!.responses[0]!.partitionResponses[0]!.errorCode).toBe(ErrorCode.INVALID_TOPIC_EXCEPTION);
  });
});
