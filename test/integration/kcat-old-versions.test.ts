import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RequestEvent } from '@gregor/broker';
import { CODEC_TYPE, storedBatches } from '../support/codec-topics.js';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const N = 1500;

/**
 * librdkafka (kcat) as a pre-0.10 client: `api.version.request=false` with `broker.version.fallback` 0.8.2
 * (Produce v0, Fetch v0) and 0.9.0 (Produce v1, Fetch v1), both message format v0; 0.9.0 adds lz4, written with
 * Kafka's broken magic-0 frame header checksum (KAFKA-1493). Every codec librdkafka has for them goes in
 * up-converted with its codec and comes back down-converted byte-exact. (A fallback of 0.10 or later makes
 * librdkafka send ApiVersions anyway, so message format v1 is proven with Sarama's V0_10_0_0 instead.)
 */
describe.each([
  ['0.8.2', 0, 0, ['none', 'gzip', 'snappy']],
  ['0.9.0', 1, 1, ['none', 'gzip', 'snappy', 'lz4']],
] as const)('kcat with broker.version.fallback=%s (Produce v%i, Fetch v%i)', (fallback, produceVersion, fetchVersion, codecs) => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  const seen: RequestEvent[] = [];
  const old = ['-X', 'api.version.request=false', '-X', `broker.version.fallback=${fallback}`];
  beforeAll(async () => {
    zk = await startZooKeeper();
    broker = await startBroker(zk, 1, { 'num.partitions': '1' });
    broker.server.apis.requestObservers.add((e) => void seen.push(e));
  });
  afterAll(async () => {
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
  });

  it.each(codecs)('-z %s: stored with the codec, read back byte-exact', async (codec) => {
    const topic = `old-${fallback.replaceAll('.', '-')}-${codec}`;
    const lines = Array.from({ length: N }, (_, i) => `${codec}-k${i % 31}\tv${i}-ünï-${'q'.repeat((i * 13) % 300)}`);
    const input = lines.join('\n') + '\n';
    seen.length = 0;
    const p = await kcat(['-b', broker.bootstrap, '-P', '-t', topic, '-K', '\t', '-z', codec, '-X', 'linger.ms=50', '-X', 'batch.num.messages=300', ...old], input, 120_000);
    expect(p.code, p.stderr).toBe(0);
    await waitFor(() => storedBatches(broker.logDir, topic).reduce((n, b) => n + b.records, 0) === N, 15_000, 'all records stored');
    const produces = seen.filter((e) => e.api === 'Produce');
    expect(produces.length).toBeGreaterThan(0);
    expect(new Set(produces.map((e) => e.apiVersion))).toEqual(new Set([produceVersion]));
    const batches = storedBatches(broker.logDir, topic);
    expect(batches.length).toBeGreaterThan(1);
    // librdkafka leaves a wrapper of one small message uncompressed; everything else carries the codec.
    const compressed = batches.filter((b) => b.compression === CODEC_TYPE[codec]).reduce((n, b) => n + b.records, 0);
    expect(compressed).toBeGreaterThan(N - 10);

    seen.length = 0;
    const c = await kcat(['-b', broker.bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%o\t%k\t%s\n', ...old], undefined, 120_000);
    expect(c.code, c.stderr).toBe(0);
    const fetches = seen.filter((e) => e.api === 'Fetch');
    expect(fetches.length).toBeGreaterThan(0);
    expect(new Set(fetches.map((e) => e.apiVersion))).toEqual(new Set([fetchVersion]));
    expect(c.stdout.toString() === lines.map((l, i) => `${i}\t${l}\n`).join('')).toBe(true);
  });

  it('a modern kcat reads what the old one wrote, and the old one reads what a modern one wrote with gzip', async () => {
    const topic = `old-${fallback.replaceAll('.', '-')}-${codecs.at(-1)}`;
    const modern = await kcat(['-b', broker.bootstrap, '-C', '-t', topic, '-o', 'beginning', '-e', '-q', '-f', '%s\n'], undefined, 120_000);
    expect(modern.code, modern.stderr).toBe(0);
    expect(modern.stdout.toString().trim().split('\n')).toHaveLength(N);

    const fresh = `new-${fallback.replaceAll('.', '-')}`;
    const input = Array.from({ length: 500 }, (_, i) => `m${i}`).join('\n') + '\n';
    expect((await kcat(['-b', broker.bootstrap, '-P', '-t', fresh, '-z', 'gzip', '-X', 'linger.ms=20'], input)).code).toBe(0);
    const c = await kcat(['-b', broker.bootstrap, '-C', '-t', fresh, '-o', 'beginning', '-e', '-q', '-f', '%s\n', ...old], undefined, 120_000);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.toString()).toBe(input);
  });
});
