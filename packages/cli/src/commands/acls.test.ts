import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel } from 'kafkajs';
import { freePorts } from '@gregor/launcher';
import { upsertScramUser } from '@gregor/broker';
import { Admin, type AclBinding } from '@gregor/client';
import { ErrorCode, KafkaProtocolError } from '@gregor/common';
import { cliClient } from '../client-factory.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../../../../test/support/in-process-cluster.js';

const CLI = join(import.meta.dirname, '../../dist/main.js');

/**
 * `gregor acls` (kafka-acls --bootstrap-server) run as a process against a real broker with
 * AclAuthorizer whose client listener is SASL_PLAINTEXT/SCRAM-SHA-512: the admin is a super user reached
 * through --command-config; kafkajs is the independent witness (DescribeAcls, and produce as alice).
 */
describe('gregor acls against a broker with AclAuthorizer', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let sasl = '';
  const dir = mkdtempSync(join(tmpdir(), 'gregor-acls-'));
  const adminConfig = join(dir, 'admin.properties');
  const aliceConfig = join(dir, 'alice.properties');
  const properties = (user: string) =>
    [
      'security.protocol=SASL_PLAINTEXT',
      'sasl.mechanism=SCRAM-SHA-512',
      `sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="${user}" password="${user}-secret";`,
      '',
    ].join('\n');

  beforeAll(async () => {
    writeFileSync(adminConfig, properties('admin'));
    writeFileSync(aliceConfig, properties('alice'));
    zk = await startZooKeeper();
    const [internal, p1] = await freePorts(2);
    sasl = `127.0.0.1:${p1}`;
    broker = await startBroker(zk, 1, {
      port: String(internal),
      listeners: `INTERNAL://127.0.0.1:${internal},SASL://127.0.0.1:${p1}`,
      'listener.security.protocol.map': 'INTERNAL:PLAINTEXT,SASL:SASL_PLAINTEXT',
      'inter.broker.listener.name': 'INTERNAL',
      'sasl.enabled.mechanisms': 'SCRAM-SHA-512',
      'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer',
      // The broker reaches itself over the PLAINTEXT inter-broker listener as ANONYMOUS.
      'super.users': 'User:ANONYMOUS;User:admin',
      'num.partitions': '1',
    });
    for (const user of ['admin', 'alice']) await upsertScramUser(broker.server.zk, user, `${user}-secret`, ['SCRAM-SHA-512']);
    await waitFor(() => broker.server.scramCredentials.get('SCRAM-SHA-512', 'admin') && broker.server.scramCredentials.get('SCRAM-SHA-512', 'alice'), 10_000, 'SCRAM users known');
    await waitFor(() => broker.server.metadataCache.controllerId === 1, 20_000, 'controller elected');
  }, 90_000);

  afterAll(async () => {
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
    removeDir(dir);
  });

  /** Runs the compiled CLI with stdin a pipe (not a terminal); resolves with its exit code and output. */
  function gregor(args: string[], input = ''): Promise<{ code: number | null; stdout: string; stderr: string }> {
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
      child.stdin.end(input);
    });
  }
  const acls = async (...args: string[]) => {
    const r = await gregor(['acls', ...args, '--bootstrap-server', sasl, '--command-config', adminConfig]);
    expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
    return r.stdout;
  };

  /** The "Current ACLs for resource" blocks of an output as `resource entry` lines, sorted. */
  function listed(stdout: string): string[] {
    const out: string[] = [];
    let resource: string | null = null;
    for (const line of stdout.split('\n')) {
      const header = /^Current ACLs for resource `(.+)`: $/.exec(line);
      if (header) resource = header[1]!;
      else if (resource && /^ ?\t\(/.test(line)) out.push(`${resource} ${line.trim()}`);
      else resource = null;
    }
    return out.sort();
  }
  const topic = (name: string, patternType = 'LITERAL') => `ResourcePattern(resourceType=TOPIC, name=${name}, patternType=${patternType})`;
  const entry = (principal: string, operation: string, permissionType = 'ALLOW', host = '*') => `(principal=${principal}, host=${host}, operation=${operation}, permissionType=${permissionType})`;

  const kafka = (user: string) =>
    new Kafka({
      clientId: 'acls-test',
      brokers: [sasl],
      logLevel: logLevel.NOTHING,
      retry: { retries: 0 },
      connectionTimeout: 5000,
      sasl: { mechanism: 'scram-sha-512', username: user, password: `${user}-secret` },
    });
  /** kafkajs' DescribeAcls of everything: `TYPE:PATTERN:name principal operation permission` (its enum codes). */
  async function witness(): Promise<string[]> {
    const admin = kafka('admin').admin();
    await admin.connect();
    try {
      const { resources } = await admin.describeAcls({ resourceType: 1, resourcePatternType: 1, operation: 1, permissionType: 1 });
      return resources.flatMap((r) => r.acls.map((a) => `${r.resourceType}:${r.resourcePatternType}:${r.resourceName} ${a.principal}@${a.host} ${a.operation} ${a.permissionType}`)).sort();
    } finally {
      await admin.disconnect();
    }
  }

  /** A listener that counts the connections made to it (and drops them): `counted` is its HOST:PORT. */
  async function countingListener(): Promise<{ counted: string; connections: () => number; close: () => Promise<void> }> {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    return {
      counted: `127.0.0.1:${(server.address() as { port: number }).port}`,
      connections: () => connections,
      close: () => new Promise<void>((resolve) => server.close(() => resolve())),
    };
  }

  it('add, list and remove ACLs of topics, groups, the cluster and prefixed patterns', async () => {
    const added = await acls('--add', '--topic', 'orders', '--allow-principal', 'User:alice', '--operation', 'Read', '--operation', 'Write');
    // Kafka's exact lines: the block, then the resource's ACLs as they are now.
    expect(added).toContain(`Adding ACLs for resource \`${topic('orders')}\`: \n \t${entry('User:alice', 'READ')}\n\t${entry('User:alice', 'WRITE')} \n\n`);
    expect(listed(added)).toEqual([`${topic('orders')} ${entry('User:alice', 'READ')}`, `${topic('orders')} ${entry('User:alice', 'WRITE')}`]);
    await acls('--add', '--group', 'readers', '--allow-principal', 'User:alice', '--operation', 'Read');
    await acls('--add', '--cluster', '--allow-principal', 'User:alice', '--operation', 'Describe');
    await acls('--add', '--topic', 'ord', '--resource-pattern-type', 'prefixed', '--deny-principal', 'User:bob', '--deny-host', '10.0.0.1', '--operation', 'Write');
    // kafkajs codes: TOPIC 2, GROUP 3, CLUSTER 4; LITERAL 3, PREFIXED 4; READ 3, WRITE 4, DESCRIBE 8; DENY 2, ALLOW 3.
    expect(await witness()).toEqual(['2:3:orders User:alice@* 3 3', '2:3:orders User:alice@* 4 3', '2:4:ord User:bob@10.0.0.1 4 2', '3:3:readers User:alice@* 3 3', '4:3:kafka-cluster User:alice@* 8 3']);

    const all = listed(await acls('--list'));
    expect(all).toEqual(
      [
        `${topic('orders')} ${entry('User:alice', 'READ')}`,
        `${topic('orders')} ${entry('User:alice', 'WRITE')}`,
        `${topic('ord', 'PREFIXED')} ${entry('User:bob', 'WRITE', 'DENY', '10.0.0.1')}`,
        `ResourcePattern(resourceType=GROUP, name=readers, patternType=LITERAL) ${entry('User:alice', 'READ')}`,
        `ResourcePattern(resourceType=CLUSTER, name=kafka-cluster, patternType=LITERAL) ${entry('User:alice', 'DESCRIBE')}`,
      ].sort(),
    );
    expect(listed(await acls('--list', '--topic', 'orders'))).toHaveLength(2);
    // match: every ACL that applies to topic "orders-eu": the prefixed "ord" one, not the literal "orders".
    expect(listed(await acls('--list', '--topic', 'orders-eu', '--resource-pattern-type', 'match'))).toEqual([`${topic('ord', 'PREFIXED')} ${entry('User:bob', 'WRITE', 'DENY', '10.0.0.1')}`]);
    const bob = await acls('--list', '--principal', 'User:bob');
    expect(bob.startsWith('ACLs for principal `User:bob`\n')).toBe(true);
    expect(listed(bob)).toEqual([`${topic('ord', 'PREFIXED')} ${entry('User:bob', 'WRITE', 'DENY', '10.0.0.1')}`]);

    // One entry of a resource; then all ACLs of a filter (no principal given).
    expect(listed(await acls('--remove', '--force', '--topic', 'orders', '--allow-principal', 'User:alice', '--operation', 'Read'))).toEqual([`${topic('orders')} ${entry('User:alice', 'WRITE')}`]);
    await acls('--remove', '--force', '--topic', 'ord', '--resource-pattern-type', 'prefixed');
    await acls('--remove', '--force', '--group', 'readers');
    await acls('--remove', '--force', '--cluster');
    expect(await witness()).toEqual(['2:3:orders User:alice@* 4 3']);
    await acls('--remove', '--force', '--topic', 'orders');
    expect(await witness()).toEqual([]);
    expect((await acls('--list')).trim()).toBe('');
  });

  it('--producer and --consumer add and remove the bindings Kafka expands them to', async () => {
    await acls('--add', '--producer', '--idempotent', '--topic', 'p1', '--transactional-id', 'tx1', '--allow-principal', 'User:carol');
    await acls('--add', '--consumer', '--topic', 'c1', '--group', 'g1', '--allow-principal', 'User:carol', '--allow-host', '10.1.1.1');
    // TOPIC 2, GROUP 3, CLUSTER 4, TRANSACTIONAL_ID 5; READ 3, WRITE 4, CREATE 5, DESCRIBE 8, IDEMPOTENT_WRITE 12.
    expect(await witness()).toEqual([
      '2:3:c1 User:carol@10.1.1.1 3 3',
      '2:3:c1 User:carol@10.1.1.1 8 3',
      '2:3:p1 User:carol@* 4 3',
      '2:3:p1 User:carol@* 5 3',
      '2:3:p1 User:carol@* 8 3',
      '3:3:g1 User:carol@10.1.1.1 3 3',
      '4:3:kafka-cluster User:carol@* 12 3',
      '5:3:tx1 User:carol@* 4 3',
      '5:3:tx1 User:carol@* 8 3',
    ]);
    await acls('--remove', '--force', '--consumer', '--topic', 'c1', '--group', 'g1', '--allow-principal', 'User:carol', '--allow-host', '10.1.1.1');
    await acls('--remove', '--force', '--producer', '--idempotent', '--topic', 'p1', '--transactional-id', 'tx1', '--allow-principal', 'User:carol');
    expect(await witness()).toEqual([]);
  });

  async function createTopic(name: string): Promise<void> {
    const admin = kafka('admin').admin();
    await admin.connect();
    try {
      await admin.createTopics({ topics: [{ topic: name, numPartitions: 1 }], waitForLeaders: true });
    } finally {
      await admin.disconnect();
    }
  }
  /** A produce as `user`: 'ok' or the error type kafkajs reports. */
  async function produceAs(user: string, topicName: string): Promise<string> {
    const producer = kafka(user).producer();
    try {
      await producer.connect();
      await producer.send({ topic: topicName, messages: [{ value: 'x' }] });
      return 'ok';
    } catch (error) {
      return (error as { type?: string }).type ?? (error as { cause?: { type?: string } }).cause?.type ?? String(error);
    } finally {
      await producer.disconnect();
    }
  }

  it('a produce as alice succeeds once --producer grants Write, fails with TOPIC_AUTHORIZATION_FAILED when Write is removed', async () => {
    await createTopic('pay');
    const produce = () => produceAs('alice', 'pay');
    await acls('--add', '--producer', '--topic', 'pay', '--allow-principal', 'User:alice');
    await waitFor(async () => (await produce()) === 'ok', 15_000, 'alice may produce');
    await acls('--remove', '--force', '--topic', 'pay', '--allow-principal', 'User:alice', '--operation', 'Write');
    await waitFor(async () => (await produce()) === 'TOPIC_AUTHORIZATION_FAILED', 15_000, 'alice may no longer produce');
    expect(await produce()).toBe('TOPIC_AUTHORIZATION_FAILED');
    await acls('--add', '--topic', 'pay', '--allow-principal', 'User:alice', '--operation', 'Write');
    await waitFor(async () => (await produce()) === 'ok', 15_000, 'alice may produce again');
    await acls('--remove', '--force', '--topic', 'pay');
  }, 60_000);

  /** `gregor acls` in ZooKeeper mode: Kafka's AclAuthorizer in the CLI process, no broker connection. */
  const zkAcls = (...args: string[]) => gregor(['acls', ...args, '--authorizer-properties', `zookeeper.connect=${zk.connectString}`]);
  const okZk = async (...args: string[]) => {
    const r = await zkAcls(...args);
    expect(r.code, `${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
    return r.stdout;
  };

  it('--authorizer-properties zookeeper.connect: ACLs added, listed and removed in ZooKeeper, the running broker enforces them', async () => {
    await createTopic('zk-pay');
    expect(await produceAs('alice', 'zk-pay')).toBe('TOPIC_AUTHORIZATION_FAILED');

    const added = await okZk('--add', '--producer', '--topic', 'zk-pay', '--allow-principal', 'User:alice');
    expect(added).toContain(`Adding ACLs for resource \`${topic('zk-pay')}\`: \n \t`);
    expect(listed(added)).toEqual([`${topic('zk-pay')} ${entry('User:alice', 'CREATE')}`, `${topic('zk-pay')} ${entry('User:alice', 'DESCRIBE')}`, `${topic('zk-pay')} ${entry('User:alice', 'WRITE')}`]);
    // The broker's authorizer learns of them through the change notification.
    await waitFor(async () => (await produceAs('alice', 'zk-pay')) === 'ok', 15_000, 'alice may produce after --add in ZooKeeper');
    expect(await witness()).toEqual(['2:3:zk-pay User:alice@* 4 3', '2:3:zk-pay User:alice@* 5 3', '2:3:zk-pay User:alice@* 8 3']);

    // Both modes print the same lines; what one writes the other reads (here an ACL added through a broker).
    await acls('--add', '--group', 'zk-g', '--allow-principal', 'User:alice', '--operation', 'Read');
    const viaZooKeeper = await okZk('--list');
    expect(viaZooKeeper).toBe(await acls('--list'));
    expect(listed(viaZooKeeper)).toContain(`ResourcePattern(resourceType=GROUP, name=zk-g, patternType=LITERAL) ${entry('User:alice', 'READ')}`);
    expect(await okZk('--list', '--principal', 'User:alice', '--topic', 'zk-pay')).toBe(await acls('--list', '--principal', 'User:alice', '--topic', 'zk-pay'));
    await okZk('--remove', '--force', '--group', 'zk-g', '--authorizer', 'kafka.security.authorizer.AclAuthorizer');

    expect(listed(await okZk('--remove', '--force', '--topic', 'zk-pay', '--allow-principal', 'User:alice', '--operation', 'Write'))).toEqual([
      `${topic('zk-pay')} ${entry('User:alice', 'CREATE')}`,
      `${topic('zk-pay')} ${entry('User:alice', 'DESCRIBE')}`,
    ]);
    await waitFor(async () => (await produceAs('alice', 'zk-pay')) === 'TOPIC_AUTHORIZATION_FAILED', 15_000, 'alice denied after --remove in ZooKeeper');
    expect((await okZk('--remove', '--force', '--topic', 'zk-pay', '--authorizer', 'kafka.security.auth.SimpleAclAuthorizer')).trim()).toBe('');
    // The broker's authorizer learns of the removal through the change notification, as of the additions above.
    await waitFor(async () => (await witness()).length === 0, 15_000, 'the broker no longer lists the removed ACLs');
    expect(await witness()).toEqual([]);

    // A binding the brokers refuse is refused alike, with the same line and exit code.
    const refused = await zkAcls('--add', '--topic', 'a/b', '--allow-principal', 'User:alice');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Error while executing ACL command: ${topic('a/b')} ${entry('User:alice', 'ALL')}: Invalid resource name a/b: it is a ZooKeeper node name [INVALID_REQUEST]`);
  }, 90_000);

  it('--authorizer-properties and --bootstrap-server: the option conflicts are refused (exit 2) before connecting anywhere; no ZooKeeper: exit 1', async () => {
    const { counted, connections, close } = await countingListener();
    const zkProps = ['--authorizer-properties', `zookeeper.connect=${counted}`];
    const list = ['acls', '--list', '--topic', 't'];
    try {
      const cases: [string[], string][] = [
        [[...list], 'Missing required argument "[authorizer-properties]"'],
        [[...list, '--bootstrap-server', counted, ...zkProps], 'The --authorizer-properties option can only be used with --authorizer option'],
        [[...list, '--bootstrap-server', counted, '--authorizer', 'kafka.security.authorizer.AclAuthorizer'], 'Only one of --bootstrap-server or --authorizer must be specified'],
        [[...list, ...zkProps, '--command-config', adminConfig], 'The --command-config option can only be used with --bootstrap-server option'],
        [[...list, ...zkProps, '--authorizer', 'org.example.Other'], 'Authorizer org.example.Other is not supported: use kafka.security.authorizer.AclAuthorizer or kafka.security.auth.SimpleAclAuthorizer'],
        [[...list, '--authorizer-properties', 'zookeeper.session.timeout.ms=6000'], 'Missing required configuration "zookeeper.connect" which has no default value.'],
        [['acls', '--remove', '--topic', 't', ...zkProps], '--remove asks for confirmation and stdin is not a terminal: give --force'],
      ];
      for (const [args, message] of cases) {
        const r = await gregor(args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr).toContain(message);
      }
      expect(connections()).toBe(0);
    } finally {
      await close();
    }
    // Nothing listens: the connection timeout given bounds the wait.
    const [closed] = await freePorts(1);
    const started = Date.now();
    const r = await gregor(['acls', '--list', '--authorizer-properties', `zookeeper.connect=127.0.0.1:${closed}`, '--authorizer-properties', 'zookeeper.connection.timeout.ms=1500']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`127.0.0.1:${closed}`);
    expect(Date.now() - started).toBeLessThan(15_000);
  }, 60_000);

  it("@gregor/client's Admin ACL calls: typed bindings, the broker's per-binding errors, DeleteAcls results per filter", async () => {
    const clientOf = (config: string) => cliClient(sasl, config);
    const client = clientOf(adminConfig);
    const alice = clientOf(aliceConfig);
    try {
      const admin = new Admin(client);
      const read = { principal: 'User:alice', host: '*', operation: 'READ', permissionType: 'ALLOW' } as const;
      const api: AclBinding = { pattern: { resourceType: 'TOPIC', name: 'api', patternType: 'PREFIXED' }, entry: read };
      const created = await admin.createAcls([{ pattern: { resourceType: 'CLUSTER', name: 'other', patternType: 'LITERAL' }, entry: { ...read, operation: 'DESCRIBE' } }, api]);
      expect(created[0]!.error).toBeInstanceOf(KafkaProtocolError);
      expect(created[0]!.error).toMatchObject({ code: ErrorCode.INVALID_REQUEST, message: 'The only valid name for the CLUSTER resource is kafka-cluster' });
      expect(created[1]).toEqual({ binding: api, error: null });
      expect(await admin.describeAcls({ pattern: { resourceType: 'TOPIC', name: 'api-v2', patternType: 'MATCH' }, entry: { principal: null, host: null, operation: 'ANY', permissionType: 'ANY' } })).toEqual([api]);
      expect(await admin.describeAcls()).toEqual([api]);
      // Not a super user: DescribeAcls is refused as a whole, CreateAcls per binding.
      await expect(new Admin(alice).describeAcls()).rejects.toMatchObject({ code: ErrorCode.CLUSTER_AUTHORIZATION_FAILED });
      expect((await new Admin(alice).createAcls([api]))[0]!.error?.code).toBe(ErrorCode.CLUSTER_AUTHORIZATION_FAILED);
      const deleted = await admin.deleteAcls([
        { pattern: { resourceType: 'GROUP', name: null, patternType: 'ANY' }, entry: { principal: null, host: null, operation: 'ANY', permissionType: 'ANY' } },
        { pattern: { resourceType: 'ANY', name: 'api', patternType: 'ANY' }, entry: { principal: 'User:alice', host: null, operation: 'ANY', permissionType: 'ALLOW' } },
      ]);
      expect(deleted.map((d) => [d.error, d.deleted])).toEqual([
        [null, []],
        [null, [{ binding: api, error: null }]],
      ]);
      expect(await admin.describeAcls()).toEqual([]);
    } finally {
      await client.close();
      await alice.close();
    }
    // The CLI prints a per-binding refusal and exits 1.
    const refused = await gregor(['acls', '--add', '--topic', 'a/b', '--allow-principal', 'User:alice', '--bootstrap-server', sasl, '--command-config', adminConfig]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`Error while executing ACL command: ${topic('a/b')} ${entry('User:alice', 'ALL')}: Invalid resource name a/b: it is a ZooKeeper node name [INVALID_REQUEST]`);
  });

  it('on a terminal, --remove asks "Are you sure" and removes only after y', async () => {
    await acls('--add', '--topic', 'asked', '--allow-principal', 'User:alice', '--operation', 'Read');
    /** The CLI under script(1): stdin is a pseudo-terminal fed with `answer`. */
    const onTerminal = (answer: string) =>
      new Promise<{ code: number | null; stdout: string }>((resolve, reject) => {
        const line = [process.execPath, CLI, 'acls', '--remove', '--topic', 'asked', '--bootstrap-server', sasl, '--command-config', adminConfig].join(' ');
        const child = spawn('script', ['-qec', line, '/dev/null'], { stdio: ['pipe', 'pipe', 'pipe'] });
        let stdout = '';
        child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
        const timer = setTimeout(() => child.kill('SIGKILL'), 40_000);
        child.on('error', reject);
        child.on('close', (code) => {
          clearTimeout(timer);
          resolve({ code, stdout });
        });
        child.stdin.end(answer);
      });
    const no = await onTerminal('n\n');
    expect(no.code, no.stdout).toBe(0);
    expect(no.stdout).toContain(`Are you sure you want to delete all ACLs for resource filter \`${topic('asked')}\`? (y/n)`);
    expect(await witness()).toEqual(['2:3:asked User:alice@* 3 3']);
    const yes = await onTerminal('y\n');
    expect(yes.code, yes.stdout).toBe(0);
    expect(await witness()).toEqual([]);
  });

  it("mistakes are refused (exit 2) before any broker is contacted; the broker's refusal exits 1", async () => {
    // A listener that counts connections: none of these commands may open one.
    const { counted, connections, close } = await countingListener();
    try {
      const invalid = await gregor(['acls', '--add', '--topic', 'orders', '--allow-principal', 'User:alice', '--operation', 'ClusterAction', '--bootstrap-server', counted]);
      expect(invalid.code).toBe(2);
      expect(invalid.stderr).toContain('ResourceType TOPIC only supports operations Read,Write,Create,Describe,Delete,Alter,DescribeConfigs,AlterConfigs,All');
      const group = await gregor(['acls', '--add', '--group', 'g', '--allow-principal', 'User:alice', '--operation', 'Write', '--bootstrap-server', counted]);
      expect(group.code).toBe(2);
      expect(group.stderr).toContain('ResourceType GROUP only supports operations Read,Describe,Delete,All');
      const noForce = await gregor(['acls', '--remove', '--topic', 'orders', '--bootstrap-server', counted]);
      expect(noForce.code).toBe(2);
      expect(noForce.stderr).toContain('--remove asks for confirmation and stdin is not a terminal: give --force');
      const twoActions = await gregor(['acls', '--add', '--list', '--topic', 'orders', '--bootstrap-server', counted]);
      expect(twoActions.code).toBe(2);
      expect(twoActions.stderr).toContain('Command must include exactly one action: --list, --add, --remove.');
      expect(connections()).toBe(0);
    } finally {
      await close();
    }

    // --remove without --force leaves the ACL in place.
    await acls('--add', '--topic', 'kept', '--allow-principal', 'User:alice', '--operation', 'Read');
    expect((await gregor(['acls', '--remove', '--topic', 'kept', '--bootstrap-server', sasl, '--command-config', adminConfig])).code).toBe(2);
    expect(await witness()).toEqual(['2:3:kept User:alice@* 3 3']);

    // alice is no super user: the broker refuses CreateAcls (Cluster Alter), the command exits 1 with its error.
    const refused = await gregor(['acls', '--add', '--topic', 'mine', '--allow-principal', 'User:alice', '--bootstrap-server', sasl, '--command-config', aliceConfig]);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain('CLUSTER_AUTHORIZATION_FAILED');
    await acls('--remove', '--force', '--topic', 'kept');
    expect(await witness()).toEqual([]);
  }, 60_000);
});
