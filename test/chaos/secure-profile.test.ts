import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Kafka, logLevel } from 'kafkajs';
import { upsertScramUser } from '@gregor/broker';
import { waitFor } from '../support/in-process-cluster.js';
import { ComposeCluster } from './compose-cluster.js';
import { KafkajsVerifyingProducer } from './kafkajs-verifying-producer.js';

/**
 * The chaos tests against compose.yaml's `secure` profile (issue 12): its ZooKeeper ensemble and brokers
 * with SASL_SSL (SCRAM-SHA-512) client listeners, an SSL inter-broker listener and AclAuthorizer, with the
 * key material of scripts/secure-certs.sh. One bounded scenario: docker kill (SIGKILL) of a partition's
 * leader while a kafkajs producer, an ordinary user with Write granted by ACL, sends acks=all over
 * SASL_SSL; afterwards a fresh kafkajs consumer over SASL_SSL reads every acknowledged value.
 * Needs the engine and images of scripts/docker-setup.sh; without them this FAILS (never skips).
 */
const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const TOPIC = 'secure-chaos';
/** A topic User:writer has no ACL on. */
const OTHER = 'secure-chaos-other';
const PARTITIONS = [0, 1, 2];
// kafkajs' enums: ResourceType TOPIC 2, GROUP 3; pattern LITERAL 3, PREFIXED 4; operation READ 3, WRITE 4; ALLOW 3.
const [TOPIC_RESOURCE, GROUP_RESOURCE, LITERAL, PREFIXED, READ, WRITE, ALLOW] = [2, 3, 3, 4, 3, 4, 3];

describe('secure profile under faults (SASL_SSL, ACLs; testcontainers + compose.yaml --profile secure)', () => {
  let cluster: ComposeCluster;
  let producer: KafkajsVerifyingProducer | undefined;
  const secrets = mkdtempSync(join(tmpdir(), 'gregor-secure-profile-'));
  const t0 = Date.now();
  const lines: string[] = [];
  const note = (s: string) => lines.push(`${`+${((Date.now() - t0) / 1000).toFixed(1)}s`.padStart(8)} ${s}`);

  let setupError: unknown = null;
  beforeEach(() => {
    if (setupError) throw setupError;
  });

  const kafka = (username: string, password: string, clientId: string) =>
    new Kafka({
      clientId,
      brokers: cluster.bootstrap().split(','),
      ssl: { ca: [readFileSync(join(secrets, 'ca.crt'), 'utf8')] },
      sasl: { mechanism: 'scram-sha-512', username, password },
      logLevel: logLevel.NOTHING,
      connectionTimeout: 5000,
      requestTimeout: 10_000,
      retry: { retries: 5, initialRetryTime: 200 },
    });
  const adminPassword = () => readFileSync(join(secrets, 'admin.password'), 'utf8').trim();

  beforeAll(async () => {
    try {
      const certs = spawnSync('bash', [join(REPO, 'scripts', 'secure-certs.sh'), secrets], { encoding: 'utf8', timeout: 60_000 });
      if (certs.status !== 0) throw new Error(`scripts/secure-certs.sh failed (${certs.status}): ${certs.stderr}`);
      cluster = await ComposeCluster.startSecure(`gregorsecure${process.pid}`, secrets);
      note(`secure cluster healthy (project ${cluster.project}, SASL_SSL bootstrap ${cluster.bootstrap()})`);
    } catch (err) {
      setupError = err;
    }
  }, 900_000); // includes waiting for another compose cluster of this machine to go (compose-lock.ts)

  afterAll(async () => {
    await producer?.stop().catch(() => {});
    console.log(`secure chaos timeline:\n${lines.join('\n')}`);
    await cluster?.down();
    rmSync(secrets, { recursive: true, force: true });
  }, 120_000);

  it('kill -9 the leader during an acks=all SASL_SSL produce by an ACL-granted user: nothing acknowledged is lost', async () => {
    // The secure-users job made User:admin (a super user): it creates the topic and the ACLs.
    const admin = kafka('admin', adminPassword(), 'secure-chaos-admin').admin();
    await admin.connect();
    try {
      const configEntries = [{ name: 'min.insync.replicas', value: '2' }];
      expect(await admin.createTopics({ topics: [TOPIC, OTHER].map((topic) => ({ topic, numPartitions: 3, replicationFactor: 3, configEntries })), waitForLeaders: true })).toBe(true);
      await admin.createAcls({
        acl: [
          ...[READ, WRITE].map((operation) => ({ resourceType: TOPIC_RESOURCE, resourceName: TOPIC, resourcePatternType: LITERAL, principal: 'User:writer', host: '*', operation, permissionType: ALLOW })),
          { resourceType: GROUP_RESOURCE, resourceName: 'verify-', resourcePatternType: PREFIXED, principal: 'User:writer', host: '*', operation: READ, permissionType: ALLOW },
        ],
      });
    } finally {
      await admin.disconnect();
    }
    // An ordinary SCRAM user, as `gregor users create` makes one (ZooKeeper /config/users/writer).
    await upsertScramUser(cluster.kafkaZk, 'writer', 'writer-secret', ['SCRAM-SHA-512']);
    const converged = async () => {
      for (const p of PARTITIONS) if ((await cluster.partitionState(TOPIC, p))?.isr.length !== 3) return false;
      return true;
    };
    await waitFor(converged, 30_000, 'ISR of every partition');

    // The ACLs hold: no Write on another topic (the broker answers TOPIC_AUTHORIZATION_FAILED).
    const denied = kafka('writer', 'writer-secret', 'secure-chaos-denied').producer({ retry: { retries: 0 } });
    await waitFor(async () => denied.connect().then(() => true, () => false), 20_000, 'writer can log in (SCRAM credentials picked up)');
    const refusal = await denied.send({ topic: OTHER, acks: -1, messages: [{ value: 'x' }] }).then(() => null, (e: unknown) => e as { type?: string; cause?: { type?: string } });
    await denied.disconnect();
    // kafkajs reports a protocol error itself or as the cause of a KafkaJSNonRetriableError.
    expect(refusal?.type ?? refusal?.cause?.type ?? String(refusal)).toBe('TOPIC_AUTHORIZATION_FAILED');

    producer = new KafkajsVerifyingProducer(kafka('writer', 'writer-secret', 'secure-chaos-producer'), TOPIC, PARTITIONS);
    await producer.start(300);
    await producer.waitForMoreAcks(200);
    note(`producing as User:writer over SASL_SSL: ${producer.acked.size} acknowledged`);

    const before = (await cluster.partitionState(TOPIC, 0))!;
    const service = `secure-broker${before.leader}`;
    const faultAt = Date.now();
    await cluster.kill(service);
    note(`killed ${service} (leader of ${TOPIC}-0, isr ${before.isr})`);
    const after = await waitFor(async () => {
      const s = await cluster.partitionState(TOPIC, 0);
      return s && s.leader !== before.leader && s.leader >= 0 ? s : null;
    }, 30_000, 'new leader');
    note(`new leader ${after.leader} after ${Date.now() - faultAt} ms (epoch ${after.leaderEpoch})`);
    expect(before.isr).toContain(after.leader);
    // Partition 0's own acknowledgements resume (the other partitions' leaders were not touched).
    await waitFor(() => producer!.firstAckAfter(faultAt, 0), 45_000, `an acknowledgement of ${TOPIC}-0 after the kill`);
    const firstAck = producer.firstAckAfter(faultAt, 0)! - faultAt;
    note(`partition 0 acks resumed ${firstAck} ms after the kill; ${producer.acked.size} acknowledged, errors ${JSON.stringify([...producer.errors])}`);
    expect(firstAck).toBeLessThan(30_000);
    await producer.waitForMoreAcks(100, 30_000);

    // The killed broker comes back over the SSL inter-broker listener and catches up.
    await cluster.startService(service);
    await cluster.waitHealthy(service);
    await waitFor(converged, 45_000, 'ISR convergence after the restart');
    note(`${service} back in every ISR`);
    await producer.stop();
    const acked = new Set(producer.acked);
    producer = undefined;

    // A fresh consumer (group verify-<pid>, Read granted by the prefixed ACL) reads every acknowledged value.
    const consumer = kafka('writer', 'writer-secret', 'secure-chaos-verify').consumer({ groupId: `verify-${process.pid}`, sessionTimeout: 10_000, heartbeatInterval: 1000 });
    const seen = new Set<string>();
    await consumer.connect();
    try {
      await consumer.subscribe({ topics: [TOPIC], fromBeginning: true });
      await consumer.run({ eachMessage: async ({ message }) => void seen.add(message.value!.toString()) });
      await waitFor(() => [...acked].every((v) => seen.has(v)), 45_000, 'every acknowledged value consumed').catch(() => undefined);
    } finally {
      await consumer.disconnect();
    }
    const lost = [...acked].filter((v) => !seen.has(v));
    note(`fresh consumer: ${seen.size} values read, ${acked.size} acknowledged, ${lost.length} lost`);
    expect(acked.size).toBeGreaterThan(300);
    expect(lost.slice(0, 20)).toEqual([]);
  }, 240_000);
});
