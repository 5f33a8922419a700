import { ConfigResourceTypes, Kafka, logLevel, type Admin, type Producer } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { nodeIo, type SegmentIo } from '@gregor/storage';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

// flush.messages from a topic's config to the fsync of its segment: a running broker, topics created and altered by
// kafkajs (CreateTopics, AlterConfigs through ZooKeeper's /config), records produced over the socket, and the
// broker's segment file calls counted (node:fs underneath: real files, real fsyncs).

/** fsyncs of each partition's `.log` segment files, by partition directory name (e.g. "durable-0"). */
function countingIo() {
  const paths = new Map<number, string>();
  const fsyncs = new Map<string, number>();
  const count = (fd: number) => {
    const path = paths.get(fd);
    if (!path?.endsWith('.log')) return;
    const partitionDir = path.split('/').at(-2)!;
    fsyncs.set(partitionDir, (fsyncs.get(partitionDir) ?? 0) + 1);
  };
  const io: SegmentIo = {
    ...nodeIo,
    openSync(path, flags) {
      const fd = nodeIo.openSync(path, flags);
      paths.set(fd, path);
      return fd;
    },
    fsyncSync(fd) {
      count(fd);
      nodeIo.fsyncSync(fd);
    },
    fsync(fd, callback) {
      count(fd);
      nodeIo.fsync(fd, callback);
    },
  };
  return { io, of: (partitionDir: string) => fsyncs.get(partitionDir) ?? 0 };
}

describe('flush.messages on a running broker', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let admin: Admin;
  let producer: Producer;
  const counter = countingIo();

  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, {}, undefined, { segmentIo: counter.io });
    const kafka = new Kafka({ clientId: 'flush-test', brokers: [broker.bootstrap], logLevel: logLevel.NOTHING });
    admin = kafka.admin();
    await admin.connect();
    producer = kafka.producer({ allowAutoTopicCreation: false });
    await producer.connect();
  }, 60_000);

  afterAll(async () => {
    await producer?.disconnect().catch(() => {});
    await admin?.disconnect().catch(() => {});
    await broker?.stop().catch(() => {});
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  /** One Produce request of one record (acks=all), then the partition's fsync count and its log's recovery point and LEO. */
  const sendOne = async (topic: string, value: string) => {
    await producer.send({ topic, acks: -1, messages: [{ value }] });
    const log = broker.server.logManager.getLog(topic, 0)!;
    return { fsyncs: counter.of(`${topic}-0`), recoveryPoint: log.recoveryPoint, logEndOffset: log.logEndOffset };
  };

  it('a topic created with flush.messages=1 fsyncs its segment before each append is answered; a topic without it never does', async () => {
    await admin.createTopics({
      waitForLeaders: true,
      topics: [
        { topic: 'durable', numPartitions: 1, replicationFactor: 1, configEntries: [{ name: 'flush.messages', value: '1' }] },
        { topic: 'lazy', numPartitions: 1, replicationFactor: 1 },
      ],
    });
    await waitFor(() => broker.server.logManager.getLog('durable', 0) && broker.server.logManager.getLog('lazy', 0), 10_000, 'logs created');
    expect(broker.server.logManager.getLog('durable', 0)!.config.flushMessages).toBe(1);

    const before = counter.of('durable-0');
    for (let i = 1; i <= 5; i++) {
      expect(await sendOne('durable', `d${i}`)).toEqual({ fsyncs: before + i, recoveryPoint: i, logEndOffset: i });
    }
    const lazyBefore = counter.of('lazy-0');
    for (let i = 1; i <= 5; i++) {
      expect(await sendOne('lazy', `l${i}`)).toEqual({ fsyncs: lazyBefore, recoveryPoint: 0, logEndOffset: i });
    }
  });

  it('flush.messages set later with AlterConfigs reaches the hosted log: the next appends fsync', async () => {
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'lazy', configEntries: [{ name: 'flush.messages', value: '2' }] }] });
    await waitFor(() => broker.server.logManager.getLog('lazy', 0)!.config.flushMessages === 2, 10_000, 'the new config on the log');
    const before = counter.of('lazy-0');
    // 5 unflushed records already: the next append flushes all 6; then every second one.
    expect(await sendOne('lazy', 'l6')).toEqual({ fsyncs: before + 1, recoveryPoint: 6, logEndOffset: 6 });
    expect(await sendOne('lazy', 'l7')).toEqual({ fsyncs: before + 1, recoveryPoint: 6, logEndOffset: 7 });
    expect(await sendOne('lazy', 'l8')).toEqual({ fsyncs: before + 2, recoveryPoint: 8, logEndOffset: 8 });
  });
});
