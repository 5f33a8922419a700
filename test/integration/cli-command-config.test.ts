import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePorts, generateCertificates, type CertificateSet } from '@gregor/launcher';
import { upsertScramUser } from '@gregor/broker';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

const CLI = join(import.meta.dirname, '../../packages/cli/dist/main.js');

/**
 * Every `gregor` command that talks to brokers takes Kafka's --command-config (client properties:
 * security.protocol, sasl.*, ssl.*), as kafka-topics / kafka-configs / kafka-consumer-groups do: here
 * against a broker whose only client listener is SASL_SSL with SCRAM-SHA-512 and AclAuthorizer on.
 * The same commands without the file, or with a wrong password, fail.
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
      'sasl.enabled.mechanisms': 'SCRAM-SHA-512',
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
});
