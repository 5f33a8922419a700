import { ConsumerTimeoutError, ZookeeperConsumerConnector, type KafkaStream, type MessageAndMetadata } from '@gregor/consumer';
import type { ConsumedRecord } from '@gregor/client';
import { UsageError } from '../usage-error.js';

export interface GroupConsumeOptions {
  /** Consumer settings with Kafka's names (group.id, zookeeper.connect, ... already merged in). */
  properties: Record<string, string>;
  topic: string | undefined;
  whitelist: string | undefined;
  blacklist: string | undefined;
  streams: number;
  max: number;
  format(record: ConsumedRecord): string;
  output: NodeJS.WritableStream;
  usage: string;
}

/**
 * `gregor consume --group G --zookeeper ...`: Kafka's old console consumer on the ZooKeeper consumer
 * connector. Every stream is read concurrently; lines are written as they come. Ends after --max
 * records, after consumer.timeout.ms (--timeout-ms) without one, or on SIGINT/SIGTERM — each time
 * through the connector's shutdown (offsets committed, owners released).
 */
export async function consumeWithGroup(o: GroupConsumeOptions): Promise<number> {
  const selectors = [o.topic, o.whitelist, o.blacklist].filter((s) => s !== undefined);
  if (selectors.length !== 1) throw new UsageError('give exactly one of --topic, --whitelist, --blacklist', o.usage);
  const connector = await ZookeeperConsumerConnector.create(o.properties);
  const removeSignals = connector.shutdownOnSignals(['SIGTERM', 'SIGINT']);
  let count = 0;
  let outputClosed = false;
  const onOutputError = (error: NodeJS.ErrnoException): void => {
    if (error.code === 'EPIPE') {
      outputClosed = true;
      void connector.shutdown();
    }
  };
  o.output.on('error', onOutputError);
  try {
    let streams: KafkaStream[];
    if (o.topic !== undefined) streams = (await connector.createMessageStreams({ [o.topic]: o.streams }))[o.topic]!;
    else if (o.whitelist !== undefined) streams = await connector.createMessageStreamsByFilter({ kind: 'white_list', regex: o.whitelist }, o.streams);
    else streams = await connector.createMessageStreamsByFilter({ kind: 'black_list', regex: o.blacklist! }, o.streams);

    const drain = async (stream: KafkaStream): Promise<void> => {
      try {
        for await (const m of stream) {
          if (connector.isShutdown || outputClosed) break;
          if (!o.output.write(`${o.format(toRecord(m))}\n`)) await waitDrain(o.output, connector);
          if (++count >= o.max) {
            await connector.shutdown();
            break;
          }
        }
      } catch (error) {
        if (!(error instanceof ConsumerTimeoutError)) throw error;
        await connector.shutdown();
      }
    };
    await Promise.all(streams.map(drain));
  } finally {
    removeSignals();
    o.output.removeListener('error', onOutputError);
    await connector.shutdown();
  }
  console.error(`Processed a total of ${count} messages`);
  return 0;
}

function toRecord(m: MessageAndMetadata): ConsumedRecord {
  return { topic: m.topic, partition: m.partition, offset: m.offset, key: m.key, value: m.value, headers: m.headers, timestamp: m.timestamp };
}

function waitDrain(output: NodeJS.WritableStream, connector: ZookeeperConsumerConnector): Promise<void> {
  return new Promise((resolve) => {
    const timer = setInterval(() => {
      if (connector.isShutdown) done();
    }, 200);
    const done = (): void => {
      clearInterval(timer);
      output.removeListener('drain', done);
      resolve();
    };
    output.once('drain', done);
  });
}
