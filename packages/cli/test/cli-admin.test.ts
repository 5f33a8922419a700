import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigResourceTypes, ConfigSource, Kafka, logLevel, type Admin as KafkaAdmin } from 'kafkajs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Admin, KafkaClient } from '@gregor/client';
import { waitFor } from '../../../test/support/in-process-cluster.js';
import { kcat } from '../../../test/support/kcat.js';
import { ProcessCluster } from '../../../test/support/process-cluster.js';
import { ensureBuilt, gregor, ok } from './gregor-process.js';

// gregor configs, reassign, elect-leaders, delete-records and topics' Kafka flags against three broker
// processes and a real ZooKeeper; what they change is read back with kafkajs and kcat.
describe('gregor admin commands against broker processes', () => {
  let cluster: ProcessCluster;
  let kafka: Kafka;
  let admin: KafkaAdmin;
  let b: string[] = [];
  const dir = mkdtempSync(join(tmpdir(), 'gregor-cli-admin-'));
  const file = (name: string, content: unknown): string => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  beforeAll(async () => {
    ensureBuilt();
    cluster = await ProcessCluster.start({
      brokers: 3,
      zookeepers: 1,
      brokerProps: { 'auto.leader.rebalance.enable': 'false', 'replica.lag.time.max.ms': '3000', 'replica.fetch.wait.max.ms': '200', 'controller.socket.timeout.ms': '5000' },
    });
    b = ['--bootstrap-server', cluster.bootstrap()];
    kafka = new Kafka({ clientId: 'cli-admin-test', brokers: cluster.bootstrap().split(','), logLevel: logLevel.NOTHING, retry: { retries: 10, initialRetryTime: 100 } });
    admin = kafka.admin();
    await admin.connect();
  }, 180_000);

  afterAll(async () => {
    await admin?.disconnect().catch(() => undefined);
    await cluster?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);

  /** Fresh metadata of a partition (gregor's client: kafkajs throws while a partition has no leader). */
  const partition = async (topic: string, p = 0) => {
    const client = new KafkaClient({ brokers: cluster.bootstrap(), retries: 10 });
    try {
      const [t] = await new Admin(client).describeTopics([topic]);
      return t!.partitions.find((x) => x.partition === p)!;
    } finally {
      await client.close();
    }
  };
  const lines = (n: number, prefix: string) => Array.from({ length: n }, (_, i) => `${prefix}${i}`).join('\n') + '\n';

  it('configs: alter with kafka-configs flags is what kafkajs describes; what kafkajs alters, describe shows', async () => {
    await ok(['topics', '--create', '--topic', 'conf', '--partitions', '1', '--replication-factor', '2', ...b]);
    const altered = await ok(['configs', '--alter', '--entity-type', 'topics', '--entity-name', 'conf', '--add-config', 'retention.ms=3600000,cleanup.policy=[compact,delete]', ...b]);
    expect(altered.stdout.trim()).toBe('Completed updating config for topic conf.');
    const described = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: 'conf', configNames: ['retention.ms', 'cleanup.policy'] }], includeSynonyms: false });
    expect(Object.fromEntries(described.resources[0]!.configEntries.map((e) => [e.configName, [e.configValue, e.configSource]]))).toEqual({
      'retention.ms': ['3600000', ConfigSource.TOPIC_CONFIG],
      'cleanup.policy': ['compact,delete', ConfigSource.TOPIC_CONFIG],
    });
    const text = (await ok(['configs', '--describe', '--topic', 'conf', ...b])).stdout.split('\n');
    expect(text[0]).toBe('Dynamic configs for topic conf are:');
    expect(text).toContain('  retention.ms=3600000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:retention.ms=3600000}');

    await ok(['configs', 'alter', '--topic', 'conf', '--delete-config', 'retention.ms', ...b]);
    const afterDelete = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.TOPIC, name: 'conf', configNames: ['retention.ms'] }], includeSynonyms: false });
    expect(afterDelete.resources[0]!.configEntries[0]).toMatchObject({ configValue: '604800000', configSource: ConfigSource.DEFAULT_CONFIG });
    const notSet = await gregor(['configs', '--alter', '--topic', 'conf', '--delete-config', 'retention.ms', ...b]);
    expect(notSet.code).toBe(1);
    expect(notSet.stderr).toContain('Invalid config(s): retention.ms');

    // Brokers: one broker's dynamic config, and the cluster-wide default.
    await ok(['configs', '--alter', '--entity-type', 'brokers', '--entity-name', '2', '--add-config', 'log.retention.bytes=123456789', ...b]);
    await ok(['configs', '--alter', '--entity-type', 'brokers', '--entity-default', '--add-config', 'log.retention.ms=86400000', ...b]);
    const broker2 = await admin.describeConfigs({ resources: [{ type: ConfigResourceTypes.BROKER, name: '2', configNames: ['log.retention.bytes', 'log.retention.ms'] }], includeSynonyms: false });
    expect(Object.fromEntries(broker2.resources[0]!.configEntries.map((e) => [e.configName, [e.configValue, e.configSource]]))).toEqual({
      'log.retention.bytes': ['123456789', ConfigSource.DYNAMIC_BROKER_CONFIG],
      'log.retention.ms': ['86400000', ConfigSource.DYNAMIC_DEFAULT_BROKER_CONFIG],
    });
    const defaults = (await ok(['configs', '--describe', '--entity-type', 'brokers', '--entity-default', ...b])).stdout;
    expect(defaults).toBe('Default configs for brokers in the cluster are:\n  log.retention.ms=86400000 sensitive=false synonyms={DYNAMIC_DEFAULT_BROKER_CONFIG:log.retention.ms=86400000}\n');
    const all = (await ok(['configs', '--describe', '--entity-type', 'brokers', ...b])).stdout;
    expect(all).toContain('Dynamic configs for broker 2 are:\n  log.retention.bytes=123456789 sensitive=false synonyms={DYNAMIC_BROKER_CONFIG:log.retention.bytes=123456789');
    expect(all).toMatch(/^Dynamic configs for broker 1 are:\nDynamic configs for broker 2 are:\n {2}log\.retention\.bytes=123456789 [^\n]*\nDynamic configs for broker 3 are:\nDefault configs for brokers in the cluster are:\n {2}log\.retention\.ms=86400000 /);

    // The other way round: kafkajs alters, gregor describes (--all shows every config with its source).
    await admin.alterConfigs({ validateOnly: false, resources: [{ type: ConfigResourceTypes.TOPIC, name: 'conf', configEntries: [{ name: 'max.message.bytes', value: '50000' }] }] });
    const full = (await ok(['configs', '--describe', '--topic', 'conf', '--all', ...b])).stdout;
    expect(full.split('\n')[0]).toBe('All configs for topic conf are:');
    expect(full).toContain('  max.message.bytes=50000 sensitive=false synonyms={DYNAMIC_TOPIC_CONFIG:max.message.bytes=50000, DEFAULT_CONFIG:message.max.bytes=1048588}');
    expect(full).toMatch(/\n {2}retention\.ms=86400000 sensitive=false synonyms=\{DYNAMIC_DEFAULT_BROKER_CONFIG:log\.retention\.ms=86400000/);
    await ok(['configs', '--alter', '--broker-defaults', '--delete-config', 'log.retention.ms', ...b]);
  }, 90_000);

  it('reassign: generate a plan for other brokers, execute it, verify until done; the records moved along', async () => {
    expect((await ok(['topics', '--create', '--topic', 'moving', '--replica-assignment', '1:2', ...b])).stdout).toContain('Created topic moving.');
    await ok(['produce', '--topic', 'moving', ...b], { input: lines(200, 'm') });
    const generated = await ok(['reassign', '--generate', '--topics-to-move-json-file', file('move.json', { topics: [{ topic: 'moving' }], version: 1 }), '--broker-list', '2,3', ...b]);
    const [title, current, , title2, proposed] = generated.stdout.split('\n');
    expect([title, title2]).toEqual(['Current partition replica assignment', 'Proposed partition reassignment configuration']);
    expect(current).toBe('{"version":1,"partitions":[{"topic":"moving","partition":0,"replicas":[1,2],"log_dirs":["any","any"]}]}');
    const plan = JSON.parse(proposed!) as { partitions: { replicas: number[] }[] };
    expect([...plan.partitions[0]!.replicas].sort()).toEqual([2, 3]);

    const executed = await ok(['reassign', '--execute', '--reassignment-json-file', file('plan.json', proposed!), ...b]);
    expect(executed.stdout).toContain(`Current partition replica assignment\n\n${current}\n\nSave this to use as the --reassignment-json-file option during rollback`);
    expect(executed.stdout).toContain('Successfully started partition reassignment for moving-0');
    const verified = await ok(['reassign', '--verify', '--reassignment-json-file', join(dir, 'plan.json'), '--wait', '--timeout-ms', '60000', ...b], { timeoutMs: 90_000 });
    expect(verified.stdout).toBe('Status of partition reassignment:\nReassignment of partition moving-0 is complete.\n');
    expect(verified.stderr).toBe(''); // no progress line when stderr is not a terminal
    const p = await partition('moving');
    expect(p.replicas).toEqual(plan.partitions[0]!.replicas);
    expect(p.replicas).toContain(p.leader);
    await waitFor(() => !existsSync(join(cluster.broker(1).logDir, 'moving-0')), 20_000, 'broker 1 deleted its replica');
    const read = await kcat(['-b', cluster.bootstrap(), '-C', '-t', 'moving', '-e', '-q', '-o', 'beginning']);
    expect(read.stdout.toString().trim().split('\n')).toHaveLength(200);
    expect((await ok(['reassign', '--list', ...b])).stdout.trim()).toBe('No partition reassignments found.');
  }, 120_000);

  it('reassign: a move that cannot finish is listed, verified as in progress, and cancelled back to its replicas', async () => {
    await ok(['topics', '--create', '--topic', 'stuck', '--replica-assignment', '3', ...b]);
    await ok(['produce', '--topic', 'stuck', ...b], { input: lines(10, 's') });
    await cluster.broker(3).stop(); // its only replica is gone: the new one has nothing to copy from
    await waitFor(async () => (await partition('stuck')).leader === -1, 30_000, 'stuck-0 offline');
    const plan = file('stuck.json', { version: 1, partitions: [{ topic: 'stuck', partition: 0, replicas: [2], log_dirs: ['any'] }] });
    await ok(['reassign', 'execute', '--reassignment-json-file', plan, ...b]);
    expect((await ok(['reassign', '--list', ...b])).stdout.trim()).toBe('Current partition reassignments:\nstuck-0: replicas: 2,3. adding: 2. removing: 3.');
    expect((await ok(['reassign', '--verify', '--reassignment-json-file', plan, ...b])).stdout).toContain('Reassignment of partition stuck-0 is still in progress.');
    const again = await gregor(['reassign', '--execute', '--reassignment-json-file', plan, ...b]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('Cannot execute because there is an existing partition assignment. Use --additional');
    expect((await ok(['reassign', '--cancel', '--reassignment-json-file', plan, ...b])).stdout.trim()).toBe('Successfully cancelled partition reassignment for: stuck-0');
    expect((await ok(['reassign', '--list', ...b])).stdout.trim()).toBe('No partition reassignments found.');
    expect((await ok(['reassign', '--cancel', '--reassignment-json-file', plan, ...b])).stdout.trim()).toBe('None of the specified partition reassignments are active.');
    expect((await partition('stuck')).replicas).toEqual([3]);
    await cluster.broker(3).start();
    await waitFor(async () => (await partition('stuck')).leader === 3, 30_000, 'stuck-0 back on broker 3');
  }, 120_000);

  it('elect-leaders preferred: leadership returns to the first replica after it moved away', async () => {
    await ok(['topics', '--create', '--topic', 'pref', '--replica-assignment', '1:2', ...b]);
    expect((await partition('pref')).leader).toBe(1);
    await cluster.broker(1).stop(); // controlled shutdown hands the leadership to broker 2
    await waitFor(async () => (await partition('pref')).leader === 2, 30_000, 'pref-0 led by 2');
    await cluster.broker(1).start();
    await waitFor(async () => (await partition('pref')).isr.length === 2, 30_000, 'broker 1 back in the ISR');
    expect((await partition('pref')).leader).toBe(2); // no automatic rebalance here
    const elected = await ok(['elect-leaders', '--election-type', 'preferred', '--topic', 'pref', '--partition', '0', ...b]);
    expect(elected.stdout.trim()).toBe('Successfully completed leader election (PREFERRED) for partitions pref-0');
    expect((await partition('pref')).leader).toBe(1);
    const noop = await ok(['elect-leaders', '--election-type', 'preferred', '--path-to-json-file', file('elect.json', { partitions: [{ topic: 'pref', partition: 0 }] }), ...b]);
    expect(noop.stdout.trim()).toBe('Valid replica already elected for partitions pref-0');
    expect((await ok(['elect-leaders', '--election-type', 'preferred', '--all-topic-partitions', ...b])).code).toBe(0);
  }, 150_000);

  it('elect-leaders unclean: an offline partition gets the live replica that was out of sync', async () => {
    await ok(['topics', '--create', '--topic', 'unclean', '--replica-assignment', '2:3', ...b]);
    await ok(['produce', '--topic', 'unclean', ...b], { input: lines(20, 'u') });
    await cluster.broker(3).stop(); // leaves the ISR
    await waitFor(async () => (await partition('unclean')).isr.join() === '2', 30_000, 'ISR = [2]');
    await cluster.broker(2).kill(); // the last in-sync replica dies
    await waitFor(async () => (await partition('unclean')).leader === -1, 30_000, 'unclean-0 offline');
    await cluster.broker(3).start();
    await new Promise((r) => setTimeout(r, 2000));
    expect((await partition('unclean')).leader).toBe(-1); // unclean.leader.election.enable is false
    const elected = await ok(['elect-leaders', '--election-type', 'unclean', '--topic', 'unclean', '--partition', '0', ...b]);
    expect(elected.stdout.trim()).toBe('Successfully completed leader election (UNCLEAN) for partitions unclean-0');
    expect((await partition('unclean')).leader).toBe(3);
    await cluster.broker(2).start();
  }, 180_000);

  it('delete-records moves the low watermark (kcat -Q shows it); topics --alter adds partitions', async () => {
    await ok(['topics', '--create', '--topic', 'purge', '--partitions', '2', '--replication-factor', '2', ...b]);
    for (const p of [0, 1]) await ok(['produce', '--topic', 'purge', '--partition', String(p), ...b], { input: lines(100, `p${p}-`) });
    const offsets = file('offsets.json', { partitions: [{ topic: 'purge', partition: 0, offset: 40 }, { topic: 'purge', partition: 1, offset: -1 }], version: 1 });
    const deleted = await ok(['delete-records', '--offset-json-file', offsets, ...b]);
    expect(deleted.stdout).toBe('Executing records delete operation\nRecords delete operation completed:\npartition: purge-0\tlow_watermark: 40\npartition: purge-1\tlow_watermark: 100\n');
    const q = await kcat(['-b', cluster.bootstrap(), '-Q', '-t', 'purge:0:-2', '-t', 'purge:1:-2']);
    expect(q.code, q.stderr).toBe(0);
    expect(q.stdout.toString().trim().split('\n').sort()).toEqual(['purge [0] offset 40', 'purge [1] offset 100']);
    const beyond = await gregor(['delete-records', '--offset-json-file', file('beyond.json', { partitions: [{ topic: 'purge', partition: 0, offset: 1000 }] }), ...b]);
    expect(beyond.code).toBe(1);
    expect(beyond.stdout).toContain('partition: purge-0\terror: purge-0: OFFSET_OUT_OF_RANGE');

    expect((await ok(['topics', '--alter', '--topic', 'purge', '--partitions', '3', ...b])).stdout).toContain('Topic purge now has 3 partitions.');
    expect((await ok(['topics', '--describe', '--topic', 'purge', ...b])).stdout).toContain('Topic: purge\tPartitionCount: 3\tReplicationFactor: 2');
  }, 90_000);

  it('produce --header: every record carries the headers in order, a repeated key twice (kcat %h and consume --format json)', async () => {
    await ok(['topics', '--create', '--topic', 'headers', '--partitions', '1', '--replication-factor', '2', ...b]);
    await ok(['produce', '--topic', 'headers', '--header', 'a=1', '--header', 'a=2', '--header', 'b=x', '--header', 'empty=', ...b], { input: 'one\ntwo\n' });
    const read = await kcat(['-b', cluster.bootstrap(), '-C', '-t', 'headers', '-o', 'beginning', '-c', '2', '-e', '-f', '%s|%h\n']);
    expect(read.stdout.toString().trim().split('\n')).toEqual(['one|a=1,a=2,b=x,empty=', 'two|a=1,a=2,b=x,empty=']);
    const json = await ok(['consume', '--topic', 'headers', '--offset', 'earliest', '--max', '2', '--format', 'json', ...b]);
    const records = json.stdout.trim().split('\n').map((l) => JSON.parse(l) as { value: string; headers: { key: string; value: string }[] });
    const expected = [{ key: 'a', value: '1' }, { key: 'a', value: '2' }, { key: 'b', value: 'x' }, { key: 'empty', value: '' }];
    expect(records.map((r) => [r.value, r.headers])).toEqual([['one', expected], ['two', expected]]);
    const bad = await gregor(['produce', '--topic', 'headers', '--header', 'novalue', ...b], { input: 'three\n' });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--header takes key=value, got "novalue"');
  }, 60_000);
});
