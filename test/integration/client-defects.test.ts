import { ErrorCode } from '@gregor/common';
import { Connection } from '@gregor/client';
import { CreatePartitions, CreateTopics, Fetch, FindCoordinator, Metadata, OffsetCommit } from '@gregor/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/** Regressions for defects real clients ran into (issue 9), against one broker and a real ZooKeeper. */
describe('defects found with real clients', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let conn: Connection;
  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'num.partitions': '1', 'offsets.topic.replication.factor': '1' });
    conn = new Connection({ host: '127.0.0.1', port: broker.port, clientId: 'defects' });
    await conn.connect();
  });
  afterAll(async () => {
    await conn?.close();
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it('a kcat consumer whose offset is out of range applies auto.offset.reset (error partitions carry an empty record set)', async () => {
    const input = Array.from({ length: 10 }, (_, i) => `r${i}`).join('\n') + '\n';
    const p = await kcat(['-b', broker.bootstrap, '-P', '-t', 'oor', '-p', '0'], input);
    expect(p.code, p.stderr).toBe(0);
    const c = await kcat(['-b', broker.bootstrap, '-C', '-t', 'oor', '-p', '0', '-o', '5000', '-e', '-q', '-X', 'auto.offset.reset=earliest'], undefined, 30_000);
    expect(c.stderr).not.toMatch(/MessageSetSize|parse failure/i);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.toString()).toBe(input);
  });

  it('the Fetch answer for an out-of-range offset has a record set of size 0, never null', async () => {
    const res = await conn.send(Fetch, {
      replicaId: -1,
      maxWaitMs: 0,
      minBytes: 1,
      maxBytes: 1 << 20,
      isolationLevel: 0,
      topics: [{ topic: 'oor', partitions: [{ partition: 0, fetchOffset: 5000, currentLeaderEpoch: -1, logStartOffset: -1, partitionMaxBytes: 1 << 20 }] }],
    });
    const part = res.responses[0]!.partitionResponses[0]!;
    expect(part.errorCode).toBe(ErrorCode.OFFSET_OUT_OF_RANGE);
    expect(part.recordSet).not.toBeNull();
    expect(part.recordSet!.length).toBe(0);
  });

  it('OffsetCommit to a topic or partition that does not exist answers UNKNOWN_TOPIC_OR_PARTITION, the rest commit', async () => {
    expect((await kcat(['-b', broker.bootstrap, '-P', '-t', 'committed'], 'x\n')).code).toBe(0);
    // The coordinator must be ready first (FindCoordinator creates __consumer_offsets).
    await waitFor(async () => (await conn.send(FindCoordinator, { key: 'defects-group', keyType: 0 })).errorCode === ErrorCode.NONE, 20_000, 'coordinator');
    const res = await conn.send(OffsetCommit, {
      groupId: 'defects-group',
      generationId: -1,
      memberId: '',
      groupInstanceId: null,
      retentionTimeMs: -1,
      topics: [
        { name: 'no-such-topic', partitions: [{ partitionIndex: 0, committedOffset: 5, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null }] },
        {
          name: 'committed',
          partitions: [
            { partitionIndex: 0, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null },
            { partitionIndex: 7, committedOffset: 1, committedLeaderEpoch: -1, commitTimestamp: -1, committedMetadata: null },
          ],
        },
      ],
    });
    expect(res.topics).toEqual([
      { name: 'no-such-topic', partitions: [{ partitionIndex: 0, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION }] },
      {
        name: 'committed',
        partitions: [
          { partitionIndex: 0, errorCode: ErrorCode.NONE },
          { partitionIndex: 7, errorCode: ErrorCode.UNKNOWN_TOPIC_OR_PARTITION },
        ],
      },
    ]);
  });

  it('CreatePartitions sent right after CreateTopics, both with a zero timeout, succeeds', async () => {
    const created = await conn.send(CreateTopics, {
      topics: [{ name: 'grown', numPartitions: 1, replicationFactor: 1, assignments: [], configs: [] }],
      timeoutMs: 0,
      validateOnly: false,
    });
    expect(created.topics.map((t) => [t.name, t.errorCode])).toEqual([['grown', ErrorCode.NONE]]);
    const grown = await conn.send(CreatePartitions, { topics: [{ name: 'grown', count: 3, assignments: null }], timeoutMs: 0, validateOnly: false });
    expect(grown.results.map((r) => [r.name, r.errorCode, r.errorMessage])).toEqual([['grown', ErrorCode.NONE, null]]);
    await waitFor(async () => {
      const md = await conn.send(Metadata, { topics: [{ name: 'grown' }], allowAutoTopicCreation: false });
      const t = md.topics[0]!;
      return t.partitions.length === 3 && t.partitions.every((p) => p.leaderId >= 0);
    }, 15_000, '3 partitions with leaders');
    const missing = await conn.send(CreatePartitions, { topics: [{ name: 'never-created', count: 3, assignments: null }], timeoutMs: 0, validateOnly: false });
    expect(missing.results[0]!.errorCode).toBe(ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
  });
});
