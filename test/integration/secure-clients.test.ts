import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Kafka, logLevel, type KafkaConfig } from 'kafkajs';
import { freePorts, generateCertificates, type CertificateSet } from '@gregor/launcher';
import { upsertScramUser } from '@gregor/broker';
import { silentLogger } from '@gregor/common';
import { ZkClient } from '@gregor/zookeeper';
import { Connection } from '@gregor/client';
import { ControlledShutdown, DescribeGroups, Fetch, FindCoordinator, LeaderAndIsr, Metadata, StopReplica, UpdateMetadata } from '@gregor/protocol';
import { kcat } from '../support/kcat.js';
import { removeDir, startBroker, startZooKeeper, waitFor, type TestBroker, type TestZooKeeper } from '../support/in-process-cluster.js';

/**
 * Issue 12's proof with real clients: kcat (librdkafka 2.0.2) and kafkajs 2.2.4 over SASL_SSL with
 * SCRAM-SHA-512 and PLAIN, and over SSL with a client certificate (mutual TLS: the principal is the
 * certificate's subject); wrong passwords get a clear authentication error; with AclAuthorizer an ACL
 * denying Write makes produce fail with TOPIC_AUTHORIZATION_FAILED while Read keeps working, and
 * group ACLs are enforced the same way. The inter-broker listener is SSL with the broker's own
 * certificate, whose principal is a super user. A non-super user (no ClusterAction) sending controller and
 * replica requests over SASL_SSL is refused, and the broker's partitions are untouched.
 */
describe('secured listeners with kcat and kafkajs (SASL_SSL, SSL, ACLs)', () => {
  let zk: TestZooKeeper;
  let broker: TestBroker;
  let certs: CertificateSet;
  let saslSsl = '';
  let ssl = '';
  const dir = mkdtempSync(join(tmpdir(), 'gregor-it-secure-'));
  const ALICE = 'User:alice';
  const BOB = 'User:bob';
  const CERT_ALICE = 'User:CN=alice,O=gregor';

  beforeAll(async () => {
    certs = generateCertificates(join(dir, 'certs'), [{ name: 'broker', hosts: ['localhost', '127.0.0.1'] }, { name: 'alice' }]);
    zk = await startZooKeeper();
    const [internal, p1, p2] = await freePorts(3);
    saslSsl = `127.0.0.1:${p1}`;
    ssl = `127.0.0.1:${p2}`;
    broker = await startBroker(zk, 1, {
      port: String(internal),
      listeners: `INTERNAL://127.0.0.1:${internal},SASL_SSL://127.0.0.1:${p1},SSL://127.0.0.1:${p2}`,
      'listener.security.protocol.map': 'INTERNAL:SSL,SASL_SSL:SASL_SSL,SSL:SSL',
      'inter.broker.listener.name': 'INTERNAL',
      'ssl.keystore.location': certs.issued.get('broker')!.keystoreFile,
      'ssl.truststore.location': certs.caFile,
      'listener.name.internal.ssl.client.auth': 'required',
      'listener.name.ssl.ssl.client.auth': 'required',
      'sasl.enabled.mechanisms': 'SCRAM-SHA-512,PLAIN',
      'listener.name.sasl_ssl.plain.sasl.jaas.config': 'org.apache.kafka.common.security.plain.PlainLoginModule required user_bob="bob-secret";',
      'authorizer.class.name': 'kafka.security.authorizer.AclAuthorizer',
      'super.users': `User:${certs.issued.get('broker')!.subject};User:admin`,
      'num.partitions': '1',
      'offsets.topic.num.partitions': '1',
      'offsets.topic.replication.factor': '1',
      'group.initial.rebalance.delay.ms': '0',
    });
    await upsertScramUser(broker.server.zk, 'alice', 'alice-secret', ['SCRAM-SHA-512']);
    await upsertScramUser(broker.server.zk, 'admin', 'admin-secret', ['SCRAM-SHA-512']);
    await upsertScramUser(broker.server.zk, 'carol', 'carol-secret', ['SCRAM-SHA-512']); // no ACL at all
    // The SCRAM cache follows /config/users through change notifications.
    await waitFor(() => broker.server.scramCredentials.get('SCRAM-SHA-512', 'admin') && broker.server.scramCredentials.get('SCRAM-SHA-512', 'alice') && broker.server.scramCredentials.get('SCRAM-SHA-512', 'carol'), 10_000, 'SCRAM users known');
  }, 90_000);

  afterAll(async () => {
    await broker?.stop();
    await zk?.stop();
    if (broker) removeDir(broker.logDir);
    removeDir(dir);
  });

  const scramArgs = (user: string, password: string) => [
    '-b', saslSsl, '-X', 'security.protocol=SASL_SSL', '-X', 'sasl.mechanisms=SCRAM-SHA-512',
    '-X', `sasl.username=${user}`, '-X', `sasl.password=${password}`, '-X', `ssl.ca.location=${certs.caFile}`,
  ];
  const plainArgs = (user: string, password: string) => [
    '-b', saslSsl, '-X', 'security.protocol=SASL_SSL', '-X', 'sasl.mechanisms=PLAIN',
    '-X', `sasl.username=${user}`, '-X', `sasl.password=${password}`, '-X', `ssl.ca.location=${certs.caFile}`,
  ];
  const sslArgs = () => [
    '-b', ssl, '-X', 'security.protocol=SSL', '-X', `ssl.ca.location=${certs.caFile}`,
    '-X', `ssl.certificate.location=${certs.issued.get('alice')!.certFile}`, '-X', `ssl.key.location=${certs.issued.get('alice')!.keyFile}`,
  ];
  const kafkajs = (extra: Partial<KafkaConfig>) =>
    new Kafka({ clientId: 'secure-it', logLevel: logLevel.NOTHING, retry: { retries: 2, initialRetryTime: 100 }, connectionTimeout: 5000, brokers: [saslSsl], ...extra });
  const ca = () => [readFileSync(certs.caFile, 'utf8')];
  const scramJs = (username: string, password: string) => kafkajs({ ssl: { ca: ca() }, sasl: { mechanism: 'scram-sha-512', username, password } });

  const grant = async (principal: string, resourceType: number, resourceName: string, operations: number[], permissionType = 3) => {
    const admin = scramJs('admin', 'admin-secret').admin();
    await admin.connect();
    try {
      await admin.createAcls({
        acl: operations.map((operation) => ({ resourceType, resourceName, resourcePatternType: 3, principal, host: '*', operation, permissionType })),
      });
    } finally {
      await admin.disconnect();
    }
  };
  // kafkajs' enums: ResourceType TOPIC 2, GROUP 3, CLUSTER 4; operation READ 3, WRITE 4, CREATE 5, DESCRIBE 8; permission DENY 2, ALLOW 3.
  const TOPIC = 2;
  // kafkajs reports a protocol error itself or as the cause of a KafkaJSNonRetriableError.
  const errorType = (e: unknown) => (e as { type?: string }).type ?? (e as { cause?: { type?: string } }).cause?.type;
  const GROUP = 3;
  const [READ, WRITE] = [3, 4];

  it('kafkajs admin (super user over SCRAM-SHA-512) creates topics and ACLs; DescribeAcls shows them', async () => {
    const admin = scramJs('admin', 'admin-secret').admin();
    await admin.connect();
    try {
      expect(await admin.createTopics({ topics: ['orders', 'audit', 'pay'].map((topic) => ({ topic, numPartitions: 1 })), waitForLeaders: true })).toBe(true);
    } finally {
      await admin.disconnect();
    }
    for (const p of [ALICE, BOB, CERT_ALICE]) await grant(p, TOPIC, 'orders', [READ, WRITE]);
    await grant(ALICE, TOPIC, 'audit', [READ, WRITE]);
    await grant(ALICE, TOPIC, 'audit', [WRITE], 2); // Deny Write wins over the Allow
    for (const p of [ALICE, CERT_ALICE, BOB]) await grant(p, GROUP, 'readers', [READ]);
    const check = scramJs('admin', 'admin-secret').admin();
    await check.connect();
    try {
      const described = await check.describeAcls({ resourceType: 1, resourcePatternType: 1, operation: 1, permissionType: 1 });
      const audit = described.resources.find((r) => r.resourceType === TOPIC && r.resourceName === 'audit')!;
      expect(audit.acls.map((a) => [a.principal, a.operation, a.permissionType]).sort()).toEqual([
        [ALICE, READ, 3],
        [ALICE, WRITE, 2],
        [ALICE, WRITE, 3],
      ]);
      expect(described.resources.find((r) => r.resourceType === GROUP)!.acls).toHaveLength(3);
    } finally {
      await check.disconnect();
    }
  });

  it('kcat over SASL_SSL with SCRAM-SHA-512 produces and consumes in a group', async () => {
    const lines = Array.from({ length: 200 }, (_, i) => `scram-${i}`).join('\n') + '\n';
    const p = await kcat([...scramArgs('alice', 'alice-secret'), '-P', '-t', 'orders'], lines);
    expect(p.code, p.stderr).toBe(0);
    const c = await kcat([...scramArgs('alice', 'alice-secret'), '-C', '-t', 'orders', '-o', 'beginning', '-e', '-q']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.toString()).toBe(lines);
    // The group: -G joins "readers" (Group Read granted), consumes, commits.
    const g = await kcat([...scramArgs('alice', 'alice-secret'), '-G', 'readers', '-X', 'auto.offset.reset=earliest', '-c', '200', '-q', 'orders'], undefined, 60_000);
    expect(g.code, g.stderr).toBe(0);
    expect(g.stdout.toString().trim().split('\n')).toHaveLength(200);
  });

  it('kcat over SASL_SSL with PLAIN, and over SSL with a client certificate (principal = subject DN)', async () => {
    const p = await kcat([...plainArgs('bob', 'bob-secret'), '-P', '-t', 'orders'], 'plain-1\nplain-2\n');
    expect(p.code, p.stderr).toBe(0);
    const s = await kcat([...sslArgs(), '-P', '-t', 'orders'], 'mtls-1\n');
    expect(s.code, s.stderr).toBe(0);
    const c = await kcat([...sslArgs(), '-C', '-t', 'orders', '-o', '-3', '-e', '-q']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.toString()).toBe('plain-1\nplain-2\nmtls-1\n');
    // Without a client certificate the SSL listener (ssl.client.auth=required) refuses the handshake.
    const noCert = await kcat(['-b', ssl, '-X', 'security.protocol=SSL', '-X', `ssl.ca.location=${certs.caFile}`, '-L', '-m', '5'], undefined, 30_000, { allowCodes: [1] });
    expect(noCert.code).toBe(1);
  });

  it('kcat with a wrong password or an unknown user gets a clear authentication error', async () => {
    for (const args of [scramArgs('alice', 'wrong'), scramArgs('mallory', 'x'), plainArgs('bob', 'wrong')]) {
      // kcat 1.7/librdkafka 2.0.2 sometimes segfaults while tearing down after the broker refused it (seen in
      // CI once in ~20 runs); the broker's part is the refusal it printed, so that crash is allowed.
      const r = await kcat([...args, '-L', '-m', '5'], undefined, 30_000, { allowCodes: [1], allowSignals: ['SIGSEGV'] });
      expect(r.code === 1 || r.signal === 'SIGSEGV').toBe(true);
      expect(r.stderr).toMatch(/Authentication failed/i);
    }
  });

  it('kafkajs over SASL_SSL (SCRAM-SHA-512 and PLAIN) and SSL: produce, group consume; a wrong password is KafkaJSSASLAuthenticationError', async () => {
    const scram = scramJs('alice', 'alice-secret');
    const producer = scram.producer();
    await producer.connect();
    await producer.send({ topic: 'orders', messages: Array.from({ length: 50 }, (_, i) => ({ key: `k${i}`, value: `js-${i}` })) });
    await producer.disconnect();

    const plain = kafkajs({ ssl: { ca: ca() }, sasl: { mechanism: 'plain', username: 'bob', password: 'bob-secret' } }).producer();
    await plain.connect();
    await plain.send({ topic: 'orders', messages: [{ value: 'js-plain' }] });
    await plain.disconnect();

    const mtls = kafkajs({ brokers: [ssl], ssl: { ca: ca(), cert: readFileSync(certs.issued.get('alice')!.certFile, 'utf8'), key: readFileSync(certs.issued.get('alice')!.keyFile, 'utf8') } });
    const consumer = mtls.consumer({ groupId: 'readers', sessionTimeout: 10_000, heartbeatInterval: 1000 });
    await consumer.connect();
    const seen: string[] = [];
    try {
      await consumer.subscribe({ topic: 'orders', fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.push(message.value!.toString()) });
      await waitFor(() => seen.includes('js-plain') && seen.includes('js-49'), 30_000, 'kafkajs consumer over SSL sees the records');
    } finally {
      await consumer.disconnect();
    }
    expect(seen.filter((v) => v.startsWith('js-'))).toHaveLength(51);

    const wrong = scramJs('alice', 'nope').admin();
    await expect(wrong.connect()).rejects.toMatchObject({ name: 'KafkaJSSASLAuthenticationError' });
    await expect(wrong.connect()).rejects.toThrow(/SASL SCRAM SHA512 authentication failed/);
  }, 60_000);

  it('an ACL denying Write: produce fails with TOPIC_AUTHORIZATION_FAILED while consume (Read) works', async () => {
    // Records in "audit" written by the super user, so there is something to read.
    const admin = kcat([...scramArgs('admin', 'admin-secret'), '-P', '-t', 'audit'], 'a1\na2\n');
    expect((await admin).code).toBe(0);
    const p = await kcat([...scramArgs('alice', 'alice-secret'), '-P', '-t', 'audit', '-X', 'message.timeout.ms=5000'], 'denied\n', 30_000, { allowCodes: [1] });
    expect(p.code).toBe(1);
    expect(p.stderr).toMatch(/Topic authorization failed/i);
    const c = await kcat([...scramArgs('alice', 'alice-secret'), '-C', '-t', 'audit', '-o', 'beginning', '-e', '-q']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.toString()).toBe('a1\na2\n');

    const producer = scramJs('alice', 'alice-secret').producer({ retry: { retries: 0 } });
    await producer.connect();
    try {
      expect(errorType(await producer.send({ topic: 'audit', messages: [{ value: 'denied' }] }).catch((e: unknown) => e))).toBe('TOPIC_AUTHORIZATION_FAILED');
      // "pay" has no ACL at all: allow.everyone.if.no.acl.found is false, so it is denied too (already by Metadata).
      expect(errorType(await producer.send({ topic: 'pay', messages: [{ value: 'x' }] }).catch((e: unknown) => e))).toBe('TOPIC_AUTHORIZATION_FAILED');
    } finally {
      await producer.disconnect();
    }
  });

  it('a kcat consumer with Describe but no Read on a topic gets a clear topic authorization error from Fetch, not a parse failure', async () => {
    // "statements": alice may Describe it (Metadata, ListOffsets answer), so librdkafka gets as far as Fetch,
    // which is refused per partition with TOPIC_AUTHORIZATION_FAILED and an empty record set (size 0):
    // librdkafka rejects a whole Fetch response carrying a null one ("invalid MessageSetSize -1").
    const admin = scramJs('admin', 'admin-secret').admin();
    await admin.connect();
    try {
      expect(await admin.createTopics({ topics: [{ topic: 'statements', numPartitions: 1 }], waitForLeaders: true })).toBe(true);
    } finally {
      await admin.disconnect();
    }
    await grant(ALICE, TOPIC, 'statements', [8]);
    const w = await kcat([...scramArgs('admin', 'admin-secret'), '-P', '-t', 'statements'], 'l1\nl2\n');
    expect(w.code, w.stderr).toBe(0);
    const c = await kcat([...scramArgs('alice', 'alice-secret'), '-C', '-t', 'statements', '-p', '0', '-o', 'beginning', '-e', '-q'], undefined, 30_000, { allowCodes: [1] });
    expect(c.code).toBe(1);
    expect(c.stderr).toMatch(/Topic authorization failed/i);
    expect(c.stderr).not.toMatch(/MessageSetSize|parse failure/i);
    expect(c.stdout.toString()).toBe('');
  });

  it('an idempotent producer: InitProducerId needs Cluster IdempotentWrite or Write on some topic (KIP-679), else CLUSTER_AUTHORIZATION_FAILED', async () => {
    const producer = scramJs('alice', 'alice-secret').producer({ idempotent: true, maxInFlightRequests: 1 });
    await producer.connect();
    try {
      const [meta] = await producer.send({ topic: 'orders', messages: [{ value: 'idempotent' }], acks: -1 });
      expect(meta!.errorCode).toBe(0);
    } finally {
      await producer.disconnect();
    }
    const carol = scramJs('carol', 'carol-secret').producer({ idempotent: true, maxInFlightRequests: 1, retry: { retries: 1, initialRetryTime: 100 } });
    const error = await carol.connect().then(() => carol.send({ topic: 'orders', messages: [{ value: 'x' }] })).catch((e: unknown) => e);
    await carol.disconnect();
    expect(errorType(error)).toBe('CLUSTER_AUTHORIZATION_FAILED');
  });

  it('group ACLs: a group without Read is GROUP_AUTHORIZATION_FAILED for kafkajs and kcat; the granted group works', async () => {
    // "watchers": Describe only, so FindCoordinator answers and JoinGroup (Group Read) is refused.
    await grant(ALICE, GROUP, 'watchers', [8]);
    const consumer = scramJs('alice', 'alice-secret').consumer({ groupId: 'watchers', retry: { retries: 0 } });
    await consumer.connect();
    try {
      await consumer.subscribe({ topic: 'orders', fromBeginning: true });
      const crashed = new Promise<unknown>((resolve) => consumer.on(consumer.events.CRASH, (e) => resolve(e.payload.error)));
      void consumer.run({ eachMessage: async () => {} }).catch(() => {});
      const error = await Promise.race([crashed, new Promise((r) => setTimeout(() => r(null), 20_000))]);
      expect(errorType(error)).toBe('GROUP_AUTHORIZATION_FAILED');
    } finally {
      await consumer.disconnect();
    }
    // "strangers": no ACL at all; FindCoordinator itself is refused, and librdkafka says so.
    const g = await kcat([...scramArgs('alice', 'alice-secret'), '-G', 'strangers', '-c', '1', 'orders'], undefined, 30_000, { allowCodes: [1] });
    expect(g.code).toBe(1);
    expect(g.stderr).toMatch(/Group authorization failed/i);
    // Committed offsets of the granted group are visible to its member (OffsetFetch: Group Describe via Read).
    const admin = scramJs('admin', 'admin-secret').admin();
    await admin.connect();
    try {
      const offsets = await admin.fetchOffsets({ groupId: 'readers', topics: ['orders'] });
      expect(Number(offsets[0]!.partitions[0]!.offset)).toBeGreaterThan(0);
    } finally {
      await admin.disconnect();
    }
  }, 60_000);
  it('with AclAuthorizer, a non-super user over SASL_SSL sending StopReplica, LeaderAndIsr, UpdateMetadata, ControlledShutdown and a replica Fetch is refused; nothing changes', async () => {
    const server = broker.server;
    const partition = () => server.replicaManager.getPartition('orders', 0)!;
    const hw = partition().log!.highWatermark;
    expect(hw).toBeGreaterThan(0);
    const stateBefore = (await server.zk.getPartitionState('orders', 0))!.state;
    expect(stateBefore.leader).toBe(1);
    const partitionDir = join(broker.logDir, 'orders-0');
    expect(existsSync(partitionDir)).toBe(true);
    // A raw client authenticated as alice (Topic Read/Write on "orders", no Cluster ClusterAction).
    const conn = new Connection({
      host: '127.0.0.1',
      port: Number(saslSsl.split(':')[1]),
      clientId: 'intruder',
      security: { tls: { ca: ca() }, sasl: { mechanism: 'SCRAM-SHA-512', username: 'alice', password: 'alice-secret' } },
    });
    const CLUSTER_AUTHORIZATION_FAILED = 31;
    const TOPIC_AUTHORIZATION_FAILED = 29;
    try {
      await conn.connect();
      // Kafka's KafkaApis answers each of these with CLUSTER_AUTHORIZATION_FAILED (authorizeClusterOperation) and keeps the connection.
      const stop = await conn.send(StopReplica, { controllerId: 1, controllerEpoch: 2 ** 31 - 1, deletePartitions: true, ungroupedPartitions: [{ topicName: 'orders', partitionIndex: 0 }] }, { version: 0 });
      expect(stop).toEqual({ errorCode: CLUSTER_AUTHORIZATION_FAILED, partitionErrors: [{ topicName: 'orders', partitionIndex: 0, errorCode: CLUSTER_AUTHORIZATION_FAILED }] });
      const stopV3 = await conn.send(StopReplica, { controllerId: 1, controllerEpoch: 2 ** 31 - 1, brokerEpoch: Number(server.brokerEpoch), deletePartitions: true, topics: [{ name: 'orders', partitionIndexes: [0] }] });
      expect(stopV3.errorCode).toBe(CLUSTER_AUTHORIZATION_FAILED);
      expect(stopV3.partitionErrors).toEqual([{ topicName: 'orders', partitionIndex: 0, errorCode: CLUSTER_AUTHORIZATION_FAILED }]);

      const lai = await conn.send(
        LeaderAndIsr,
        {
          controllerId: 1,
          controllerEpoch: 2 ** 31 - 1,
          ungroupedPartitionStates: [{ topicName: 'orders', partitionIndex: 0, controllerEpoch: 2 ** 31 - 1, leader: 2, leaderEpoch: 1_000_000, isr: [2], zkVersion: 999, replicas: [1, 2] }],
          liveLeaders: [{ brokerId: 2, hostName: '127.0.0.1', port: 1 }],
        },
        { version: 0 },
      );
      expect(lai).toEqual({ errorCode: CLUSTER_AUTHORIZATION_FAILED, partitionErrors: [{ topicName: 'orders', partitionIndex: 0, errorCode: CLUSTER_AUTHORIZATION_FAILED }] });

      const um = await conn.send(UpdateMetadata, { controllerId: 1, controllerEpoch: 2 ** 31 - 1, ungroupedPartitionStates: [], liveBrokers: [] }, { version: 0 });
      expect(um.errorCode).toBe(CLUSTER_AUTHORIZATION_FAILED);

      // Broker 1 is the controller: an accepted ControlledShutdown would mark it as shutting down.
      const cs = await conn.send(ControlledShutdown, { brokerId: 1, brokerEpoch: Number(server.brokerEpoch) });
      expect(cs).toMatchObject({ errorCode: CLUSTER_AUTHORIZATION_FAILED, remainingPartitions: [] });

      // A follower fetch (replica id >= 0) past the HW would move the HW; Kafka answers TOPIC_AUTHORIZATION_FAILED per partition.
      const fetch = await conn.send(Fetch, {
        replicaId: 2,
        maxWaitMs: 0,
        minBytes: 1,
        maxBytes: 1 << 20,
        isolationLevel: 0,
        sessionId: 0,
        sessionEpoch: -1,
        topics: [{ topic: 'orders', partitions: [{ partition: 0, currentLeaderEpoch: -1, fetchOffset: hw + 1000, logStartOffset: 0, partitionMaxBytes: 1 << 20 }] }],
        forgottenTopicsData: [],
        rackId: '',
      });
      const refused = fetch.responses[0]!.partitionResponses[0]!;
      expect(refused).toMatchObject({ partition: 0, errorCode: TOPIC_AUTHORIZATION_FAILED, highWatermark: -1 });
      expect(refused.recordSet?.length).toBe(0); // an empty record set, never null (librdkafka refuses size -1)

      // Refusals keep the connection: alice's own request is still served on it.
      const md = await conn.send(Metadata, { topics: [{ name: 'orders' }] });
      expect(md.topics[0]!).toMatchObject({ name: 'orders', errorCode: 0 });
    } finally {
      await conn.close();
    }

    // Nothing changed: leader, epoch and ISR in ZooKeeper, the log on disk, the HW, the controller's view; every record reads back.
    expect(existsSync(partitionDir)).toBe(true);
    expect(partition().isLeader).toBe(true);
    expect(partition().log!.highWatermark).toBe(hw);
    expect((await server.zk.getPartitionState('orders', 0))!.state).toEqual(stateBefore);
    expect(server.controller.ctx.shuttingDownBrokerIds.size).toBe(0);
    expect(server.metadataCache.aliveBrokers().map((b) => b.id)).toEqual([1]);
    const c = await kcat([...scramArgs('alice', 'alice-secret'), '-C', '-t', 'orders', '-o', 'beginning', '-e', '-q']);
    expect(c.code, c.stderr).toBe(0);
    expect(c.stdout.toString().trim().split('\n')).toHaveLength(hw);
  });
  it('DeleteAcls (kafkajs admin.deleteAcls) removes exactly the matching ACLs: DescribeAcls and /kafka-acl/Topic/<name> lose them, and the Write is denied', async () => {
    const zkc = await ZkClient.connect({ connectString: zk.connectString, sessionTimeoutMs: 6000, logger: silentLogger() });
    const admin = scramJs('admin', 'admin-secret').admin();
    await admin.connect();
    const producer = scramJs('alice', 'alice-secret').producer({ retry: { retries: 0 } });
    const stored = async () => {
      const node = await zkc.getDataOrNull('/kafka-acl/Topic/ledger');
      return node && (JSON.parse(node.data.toString()) as { version: number; acls: { principal: string; permissionType: string; operation: string; host: string }[] });
    };
    const described = async () =>
      (await admin.describeAcls({ resourceType: TOPIC, resourceName: 'ledger', resourcePatternType: 3, operation: 1, permissionType: 1 })).resources.flatMap((r) =>
        r.acls.map((a) => [a.principal, a.operation, a.permissionType]),
      );
    try {
      expect(await admin.createTopics({ topics: [{ topic: 'ledger', numPartitions: 1 }], waitForLeaders: true })).toBe(true);
      await grant(ALICE, TOPIC, 'ledger', [WRITE]);
      await grant(BOB, TOPIC, 'ledger', [READ]);
      expect((await stored())!.acls.map((a) => `${a.principal} ${a.permissionType} ${a.operation}`).sort()).toEqual(['User:alice Allow Write', 'User:bob Allow Read']);
      await producer.connect();
      const [ok] = await producer.send({ topic: 'ledger', messages: [{ value: 'before-delete' }] });
      expect(ok!.errorCode).toBe(0);

      // A filter matching alice's Write only.
      const deleted = await admin.deleteAcls({ filters: [{ resourceType: TOPIC, resourceName: 'ledger', resourcePatternType: 3, principal: ALICE, host: '*', operation: WRITE, permissionType: 3 }] });
      expect(deleted.filterResponses).toHaveLength(1);
      expect(deleted.filterResponses[0]!.errorCode).toBe(0);
      expect(deleted.filterResponses[0]!.matchingAcls).toEqual([
        expect.objectContaining({ errorCode: 0, resourceType: TOPIC, resourceName: 'ledger', resourcePatternType: 3, principal: ALICE, host: '*', operation: WRITE, permissionType: 3 }),
      ]);
      expect(await described()).toEqual([[BOB, READ, 3]]);
      expect((await stored())!.acls).toEqual([{ principal: BOB, permissionType: 'Allow', operation: 'Read', host: '*' }]);
      // The decision follows at once: alice's Write (and the Describe it implied) is gone.
      expect(errorType(await producer.send({ topic: 'ledger', messages: [{ value: 'after-delete' }] }).catch((e: unknown) => e))).toBe('TOPIC_AUTHORIZATION_FAILED');

      // A filter matching any principal, operation and permission (pattern MATCH) takes the rest; the znode goes with its last ACL.
      const rest = await admin.deleteAcls({ filters: [{ resourceType: TOPIC, resourceName: 'ledger', resourcePatternType: 2, operation: 1, permissionType: 1 }] });
      expect(rest.filterResponses[0]!.matchingAcls.map((a) => [a.principal, a.operation])).toEqual([[BOB, READ]]);
      expect(await described()).toEqual([]);
      expect(await stored()).toBeNull();
      // Other resources' ACLs are untouched: alice still writes "orders" (a fresh producer: kafkajs refuses any
      // metadata answer naming a denied topic, and the first one has "ledger" among its topics).
      const other = scramJs('alice', 'alice-secret').producer({ retry: { retries: 0 } });
      await other.connect();
      try {
        const [still] = await other.send({ topic: 'orders', messages: [{ value: 'still-allowed' }] });
        expect(still!.errorCode).toBe(0);
      } finally {
        await other.disconnect();
      }
    } finally {
      await producer.disconnect();
      await admin.disconnect();
      await zkc.close();
    }
  });

  it('Metadata v9 and DescribeGroups v4 asked for authorized operations answer what the ACLs allow the principal (implied Describe and DescribeConfigs included)', async () => {
    const admin = scramJs('admin', 'admin-secret').admin();
    await admin.connect();
    try {
      expect(await admin.createTopics({ topics: [{ topic: 'opsview', numPartitions: 1 }], waitForLeaders: true })).toBe(true);
    } finally {
      await admin.disconnect();
    }
    const [ALTER_CONFIGS] = [11];
    await grant(ALICE, TOPIC, 'opsview', [READ, ALTER_CONFIGS]);
    await grant(ALICE, GROUP, 'ops-g', [READ]);
    const bits = (...codes: number[]) => codes.reduce((f, c) => f | (1 << c), 0);
    const ask = async (username: string, password: string) => {
      const conn = new Connection({ host: '127.0.0.1', port: Number(saslSsl.split(':')[1]), clientId: 'ops', security: { tls: { ca: ca() }, sasl: { mechanism: 'SCRAM-SHA-512', username, password } } });
      await conn.connect();
      try {
        const md = await conn.send(Metadata, { topics: [{ name: 'opsview' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: true, includeTopicAuthorizedOperations: true }, { version: 9 });
        const plain = await conn.send(Metadata, { topics: [{ name: 'opsview' }], allowAutoTopicCreation: false, includeClusterAuthorizedOperations: false, includeTopicAuthorizedOperations: false }, { version: 9 });
        expect(plain.topics[0]!.topicAuthorizedOperations).toBe(-2147483648); // not asked: Kafka's "omitted"
        expect(plain.clusterAuthorizedOperations).toBe(-2147483648);
        // The only broker coordinates every group once __consumer_offsets has a leader.
        await waitFor(async () => (await conn.send(FindCoordinator, { key: 'ops-g', keyType: 0 }, { version: 2 })).errorCode === 0, 20_000, 'a group coordinator');
        const groups = await conn.send(DescribeGroups, { groups: ['ops-g'], includeAuthorizedOperations: true }, { version: 4 });
        return { topic: md.topics[0]!, cluster: md.clusterAuthorizedOperations, group: groups.groups[0]! };
      } finally {
        await conn.close();
      }
    };
    const alice = await ask('alice', 'alice-secret');
    expect(alice.topic.errorCode).toBe(0);
    // Read and AlterConfigs granted; Describe comes with Read, DescribeConfigs with AlterConfigs.
    expect(alice.topic.topicAuthorizedOperations).toBe(bits(READ, 8, 10, ALTER_CONFIGS));
    expect(alice.group).toMatchObject({ errorCode: 0, groupId: 'ops-g', authorizedOperations: bits(READ, 8) });
    expect(alice.cluster! & bits(9)).toBe(0); // no ClusterAction for alice
    // The super user may do every operation Kafka supports on each resource type.
    const superUser = await ask('admin', 'admin-secret');
    expect(superUser.topic.topicAuthorizedOperations).toBe(bits(READ, WRITE, 5, 8, 6, 7, 10, 11));
    expect(superUser.cluster).toBe(bits(5, 9, 10, 11, 12, 7, 8));
    expect(superUser.group.authorizedOperations).toBe(bits(READ, 8, 6));
  });
});
