import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { freePorts, generateCertificates, type CertificateSet } from '@gregor/launcher';
import { upsertScramUser } from '@gregor/broker';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const CLI = join(import.meta.dirname, '../../packages/cli/dist/main.js');

/**
 * Every `gregor` command that talks to brokers takes Kafka's --command-config (client properties:
 * security.protocol, sasl.*, ssl.*), as kafka-topics / kafka-configs / kafka-consumer-groups do: here
 * against a broker whose only client listener is SASL_SSL with SCRAM-SHA-512 and AclAuthorizer on.
 * The same commands without the file, or with a wrong password, fail. `gregor users` creates and deletes
 * SCRAM users that kcat and kafkajs then authenticate as (SCRAM-SHA-256), or no longer can.
 */
describe('gregor commands with --command-config against a SASL_SSL broker', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let certs: CertificateSet;
  let saslSsl = '';
  const dir = mkdtempSync(join(tmpdir(), 'gregor-it-cmdcfg-'));
  const adminConfig = join(dir, 'admin.properties');
  const wrongConfig = join(dir, 'wrong.properties');

  const properties = (user: string, password: string) =>
    [
      'security.protocol=SASL_SSL',
      'sasl.mechanism=SCRAM-SHA-512',
      `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${password}";`,
      'ssl.truststore.type=PEM',
      `ssl.truststore.location=${certs.caFile}`,
      '',
    ].join('\n');

  beforeAll(async () => {
    certs = generateCertificates(join(dir, 'certs'), [{ name: 'broker', hosts: ['localhost', '127.0.0.1'] }]);
    writeFileSync(adminConfig, properties('admin', 'admin-secret'));
    writeFileSync(wrongConfig, properties('admin', 'not-the-password'));
    zk = await startZooKeeper();
    const [internal, p1] = await freePorts(2);
    saslSsl = `127.0.0.1:${p1}`;
    broker = await startBroker(zk, 1, {
      port: String(internal),
      listeners: `INTERNAL://127.0.0.1:${internal},SASL_SSL://127.0.0.1:${p1}`,
      'listener.security.protocol.map': 'INTERNAL:SSL,SASL_SSL:SASL_SSL',
      'inter.broker.listener.name': 'INTERNAL',
      'ssl.keystore.location': certs.issued.get('broker')!.keystoreFile,
      'ssl.truststore.location': certs.caFile,
      // The broker's certificate (a super user) on the inter-broker listener.
      'listener.name.internal.ssl.client.auth': 'required',
      'sasl.enabled.mechanisms': 'SCRAM-SHA-512,SCRAM-SHA-256',
      'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer',
      'super.users': `User:${certs.issued.get('broker')!.subject};User:admin`,
      'num.partitions': '1',
      'offsets.topic.num.partitions': '1',
      'offsets.topic.replication.factor': '1',
      'group.initial.rebalance.delay.ms': '0',
    });
    await upsertScramUser(broker.server.zk, 'admin', 'admin-secret', ['SCRAM-SHA-512']);
    await waitFor(() => broker.server.scramCredentials.get('SCRAM-SHA-512', 'admin'), 10_000, 'SCRAM user known');
    // CreateTopics needs the controller: the broker's first UpdateMetadata names it.
    await waitFor(() => broker.server.metadataCache.controllerId === 1, 20_000, 'controller elected');
  }, 90_000);

  afterAll(async () => {
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
    removeDir(dir);
  });

  /** Runs the compiled CLI; resolves with its exit code and output (bounded). */
  function gregor(args: string[], input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
    return new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI, ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
      child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
      const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
      child.on('error', reject);
      child.on('close', (code) => {
        clearTimeout(timer);
        resolve({ code, stdout, stderr });
      });
      child.stdin.end(input ?? '');
    });
  }
  const secured = (...args: string[]) => gregor([...args, '--bootstrap-server', saslSsl, '--command-config', adminConfig]);

  it('topics, produce, consume --group, groups, configs, delete-records, elect-leaders and reassign', async () => {
    const created = await secured('topics', 'create', '--topic', 'secured', '--partitions', '2', '--replication-factor', '1');
    expect(created.code, created.stderr).toBe(0);
    const listed = await secured('topics', 'list');
    expect(listed.code, listed.stderr).toBe(0);
    expect(listed.stdout.split('\n')).toContain('secured');
    const described = await secured('topics', 'describe', '--topic', 'secured');
    expect(described.code, described.stderr).toBe(0);
    expect(described.stdout).toContain('secured');

    const lines = Array.from({ length: 20 }, (_, i) => `v${i}`);
    const produced = await gregor(['produce', '--topic', 'secured', '--bootstrap-server', saslSsl, '--command-config', adminConfig], `${lines.join('\n')}\n`);
    expect(produced.code, produced.stderr).toBe(0);
    // consume --group: a coordinator group member over SASL_SSL (JoinGroup, SyncGroup, OffsetCommit).
    const consumed = await secured('consume', '--topic', 'secured', '--group', 'cfg-readers', '--from-beginning', '--max', '20', '--timeout-ms', '20000');
    expect(consumed.code, consumed.stderr).toBe(0);
    expect(consumed.stdout.trim().split('\n').sort()).toEqual([...lines].sort());

    const groups = await secured('groups', 'list');
    expect(groups.code, groups.stderr).toBe(0);
    expect(groups.stdout).toContain('cfg-readers');
    const group = await secured('groups', 'describe', '--group', 'cfg-readers', '--format', 'json');
    expect(group.code, group.stderr).toBe(0);
    expect(group.stdout).toContain('"secured"');

    const altered = await secured('configs', '--alter', '--entity-type', 'topics', '--entity-name', 'secured', '--add-config', 'retention.ms=3600000');
    expect(altered.code, altered.stderr).toBe(0);
    const configs = await secured('configs', '--describe', '--entity-type', 'topics', '--entity-name', 'secured');
    expect(configs.code, configs.stderr).toBe(0);
    expect(configs.stdout).toContain('retention.ms=3600000');

    const offsets = join(dir, 'offsets.json');
    writeFileSync(offsets, JSON.stringify({ version: 1, partitions: [{ topic: 'secured', partition: 0, offset: -1 }] }));
    const deleted = await secured('delete-records', '--offset-json-file', offsets);
    expect(deleted.code, deleted.stderr).toBe(0);
    const elected = await secured('elect-leaders', '--election-type', 'preferred', '--all-topic-partitions');
    expect(elected.code, elected.stderr).toBe(0);
    const reassignments = await secured('reassign', '--list');
    expect(reassignments.code, reassignments.stderr).toBe(0);
  }, 120_000);

  it('without --command-config, or with a wrong password, the same commands fail', async () => {
    const plain = await gregor(['topics', 'list', '--bootstrap-server', saslSsl]);
    expect(plain.code).not.toBe(0);
    for (const args of [
      ['topics', 'list'],
      ['groups', 'list'],
      ['configs', '--describe', '--entity-type', 'topics', '--entity-name', 'secured'],
    ]) {
      const wrong = await gregor([...args, '--bootstrap-server', saslSsl, '--command-config', wrongConfig]);
      expect(wrong.code, `${args.join(' ')}: ${wrong.stdout}`).not.toBe(0);
      expect(wrong.stderr.toLowerCase()).toMatch(/authentication|sasl/);
    }
    // The ZooKeeper consumer connector has no TLS or SASL: refused, not silently PLAINTEXT.
    const zkGroup = await gregor(['consume', '--topic', 'secured', '--group', 'g', '--zookeeper', zk.connectString, '--command-config', adminConfig]);
    expect(zkGroup.code).toBe(2);
    expect(zkGroup.stderr).toContain('--command-config does not apply to --zookeeper');
  }, 120_000);
  it('gregor users: a SCRAM-SHA-256 user it creates authenticates with kcat and kafkajs; once deleted, authentication fails', async () => {
    const users = (...args: string[]) => gregor(['users', ...args, '--zookeeper', zk.connectString]);
    const scram = (password: string, mechanism: 'scram-sha-256' | 'scram-sha-512' = 'scram-sha-256') =>
      new Kafka({
        clientId: 'users-it',
        brokers: [saslSsl],
        logLevel: logLevel.NOTHING,
        retry: { retries: 0 },
        connectionTimeout: 5000,
        ssl: { ca: [readFileSync(certs.caFile, 'utf8')] },
        // The ternary narrows the mechanism for kafkajs' SASLOptions union.
        sasl: mechanism === 'scram-sha-256' ? { mechanism, username: 'dave', password } : { mechanism, username: 'dave', password },
      }).admin();
    const kcatArgs = (password: string) => [
      '-b', saslSsl, '-X', 'security.protocol=SASL_SSL', '-X', 'sasl.mechanisms=SCRAM-SHA-256',
      '-X', 'sasl.username=dave', '-X', `sasl.password=${password}`, '-X', `ssl.ca.location=${certs.caFile}`, '-L', '-J', '-m', '10',
    ];

    // The password from stdin (--password-file -), SCRAM-SHA-256 only.
    const created = await gregor(['users', 'create', '--user', 'dave', '--password-file', '-', '--mechanism', 'SCRAM-SHA-256', '--zookeeper', zk.connectString], 'dave-secret\n');
    expect(created.code, created.stderr).toBe(0);
    expect(created.stdout).toContain('Completed updating config for user dave: SCRAM-SHA-256 with 4096 iterations.');
    const listed = await users('list', '--format', 'json');
    expect(listed.code, listed.stderr).toBe(0);
    expect((JSON.parse(listed.stdout) as { user: string; credentials: { mechanism: string; iterations: number }[] }[]).find((u) => u.user === 'dave')).toEqual({
      user: 'dave',
      credentials: [{ mechanism: 'SCRAM-SHA-256', iterations: 4096 }],
    });
    await waitFor(() => broker.server.scramCredentials.get('SCRAM-SHA-256', 'dave'), 10_000, 'the broker learns dave');

    // kcat (librdkafka) and kafkajs both authenticate with SCRAM-SHA-256 (dave has no ACL: authenticated, sees no topic).
    const k = await kcat(kcatArgs('dave-secret'));
    expect(k.code, k.stderr).toBe(0);
    expect(JSON.parse(k.stdout.toString())).toMatchObject({ brokers: [{ id: 1 }], topics: [] });
    const admin = scram('dave-secret');
    await admin.connect();
    try {
      expect(await admin.listTopics()).toEqual([]);
    } finally {
      await admin.disconnect();
    }
    // Only the mechanism it was created with: SCRAM-SHA-512 and a wrong password are refused.
    await expect(scram('dave-secret', 'scram-sha-512').connect()).rejects.toMatchObject({ name: 'KafkaJSSASLAuthenticationError' });
    await expect(scram('wrong').connect()).rejects.toMatchObject({ name: 'KafkaJSSASLAuthenticationError' });

    const deleted = await users('delete', '--user', 'dave');
    expect(deleted.code, deleted.stderr).toBe(0);
    expect(deleted.stdout).toContain('Completed deleting SCRAM-SHA-256, SCRAM-SHA-512 credentials of user dave.');
    expect((JSON.parse((await users('list', '--format', 'json')).stdout) as { user: string }[]).map((u) => u.user)).not.toContain('dave');
    await waitFor(() => !broker.server.scramCredentials.get('SCRAM-SHA-256', 'dave'), 10_000, 'the broker forgets dave');
    await expect(scram('dave-secret').connect()).rejects.toMatchObject({ name: 'KafkaJSSASLAuthenticationError' });
    // kcat 1.7/librdkafka 2.0.2 sometimes segfaults while tearing down after a refusal (see secure-clients.test.ts).
    const gone = await kcat(kcatArgs('dave-secret'), undefined, 30_000, { allowCodes: [1], allowSignals: ['SIGSEGV'] });
    expect(gone.code === 1 || gone.signal === 'SIGSEGV').toBe(true);
    expect(gone.stderr).toMatch(/Authentication failed/i);
    const again = await users('delete', '--user', 'dave');
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('user dave has no SCRAM-SHA-256/SCRAM-SHA-512 credentials');
  }, 120_000);
});
