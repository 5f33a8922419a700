// One consuming run for bench/consume-ab.mjs, in its own process: node consume-one.mjs <checkout> <bootstrap> <topic> <consumer|reader|connector1|connector4> <N> [zookeeper.connect].
// Prints {"rate": records/s from the first record, "cpuPerM": this process's CPU-seconds per 1M records}.
import { join } from 'node:path';
const [root, bootstrap, topic, kind, n] = process.argv.slice(2);
const N = Number(n);
const { KafkaClient, Consumer, Reader } = await import(join(root, 'packages/client/dist/index.js'));
const cpu0 = process.cpuUsage();
let t0 = 0;
let count = 0;
if (kind === 'consumer') {
  const client = new KafkaClient({ brokers: bootstrap });
  for await (const _r of new Consumer(client).consume({ topic, untilEnd: true })) if (count++ === 0) t0 = performance.now();
  await client.close();
} else if (kind.startsWith('connector')) {
  // The ZooKeeper consumer connector with 1 or 4 streams (its own group, from the beginning).
  const { ZookeeperConsumerConnector } = await import(join(root, 'packages/consumer/dist/index.js'));
  const { silentLogger } = await import(join(root, 'packages/common/dist/index.js'));
  const connector = await ZookeeperConsumerConnector.create(
    { 'group.id': `consume-ab-${process.pid}`, 'zookeeper.connect': process.argv[7], 'auto.offset.reset': 'smallest', 'queued.max.message.chunks': '4' },
    { logger: silentLogger() },
  );
  const streams = (await connector.createMessageStreams({ [topic]: Number(kind.slice('connector'.length)) }))[topic];
  await Promise.all(streams.map(async (s) => {
    for await (const _m of s) {
      if (count++ === 0) t0 = performance.now();
      if (count >= N) void connector.shutdown();
    }
  }));
  await connector.shutdown();
} else {
  const reader = new Reader({ brokers: bootstrap, groupId: `consume-ab-${process.pid}`, topic, sessionTimeoutMs: 10_000 });
  for (; count < N; count++) {
    await reader.fetchMessage();
    if (count === 0) t0 = performance.now();
  }
  await reader.close();
}
const secs = (performance.now() - t0) / 1000;
const cpu = process.cpuUsage(cpu0);
console.log(JSON.stringify({ rate: Math.round((count - 1) / secs), cpuPerM: (cpu.user + cpu.system) / 1e6 / (count / 1e6) }));
