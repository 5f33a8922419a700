// Chaos-test support: the compose.yaml cluster (3 ZooKeeper + 3 broker containers) started through
// testcontainers' DockerComposeEnvironment on free host ports, with docker kill/start/pause/unpause of
// single services and ZooKeeper reads of partition state and the controller.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@gregor/common';
import { freePorts } from '@gregor/launcher';
import { KafkaZkClient, ZkSession } from '@gregor/zookeeper';
import type { DockerComposeEnvironment, StartedDockerComposeEnvironment } from 'testcontainers';
import { acquireComposeLock, releaseComposeLock } from './compose-lock.js';
import { useDockerEngine } from './docker-env.js';

/** The HTTP admin token the test cluster runs with (GREGOR_HTTP_TOKEN). */
const HTTP_TOKEN = `chaos-${process.pid}`;

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CONSUMERS = ['consumer1', 'consumer2'];

/** Which cluster of compose.yaml: the default one, or the `secure` profile's (SASL_SSL, ACLs). */
interface Layout {
  files: string[];
  services: string[];
  /** Infix of the host-port variables: GREGOR_<infix>BROKER1_PORT ... */
  portVar: '' | 'SECURE_';
  environment: Record<string, string>;
  /** --profile: Compose v1 enables a named service's profile but not its dependencies' (secure-users' ZooKeeper). */
  profiles: string[];
}

const DEFAULT_LAYOUT = (): Layout => ({
  files: ['compose.yaml', 'test/chaos/compose.chaos.yaml'],
  services: ['zk1', 'zk2', 'zk3', 'broker1', 'broker2', 'broker3'],
  portVar: '',
  environment: {},
  profiles: [],
});

/** Minimal view of dockerode's Container that the faults use. */
interface DockerContainer {
  kill(): Promise<unknown>;
  start(): Promise<unknown>;
  pause(): Promise<unknown>;
  unpause(): Promise<unknown>;
  inspect(): Promise<{ State: { Running: boolean; Paused: boolean; Health?: { Status: string } } }>;
}

export class ComposeCluster {
  readonly project: string;
  readonly brokerPorts: number[];
  readonly httpPorts: number[];
  readonly zkPorts: number[];
  readonly consumerPorts: number[];
  readonly consumerGroup: string;
  readonly #env: StartedDockerComposeEnvironment;
  readonly #compose: DockerComposeEnvironment;
  readonly #containers: Map<string, DockerContainer>;
  /** A session that reconnects after the ZooKeeper faults (a plain client would stay expired). */
  readonly #zkSession: ZkSession;
  readonly kafkaZk: KafkaZkClient;

  private constructor(project: string, ports: number[], group: string, compose: DockerComposeEnvironment, env: StartedDockerComposeEnvironment, containers: Map<string, DockerContainer>, zk: ZkSession) {
    this.project = project;
    this.brokerPorts = ports.slice(0, 3);
    this.httpPorts = ports.slice(3, 6);
    this.zkPorts = ports.slice(6, 9);
    this.consumerPorts = ports.slice(9, 11);
    this.consumerGroup = group;
    this.#compose = compose;
    this.#env = env;
    this.#containers = containers;
    this.#zkSession = zk;
    this.kafkaZk = new KafkaZkClient(zk);
  }

  /**
   * `docker-compose up` of compose.yaml + test/chaos/compose.chaos.yaml (ZooKeeper and brokers), waiting for
   * every healthcheck. The consumer services (group `consumerGroup` on `consumerTopic`) start with startConsumers().
   */
  static start(project: string, consumerTopic: string): Promise<ComposeCluster> {
    return ComposeCluster.#locked(project, consumerTopic, DEFAULT_LAYOUT());
  }

  /**
   * The `secure` profile's cluster (secure-zk1..3, the secure-users job, secure-broker1..3 with SASL_SSL on
   * brokerPorts) with compose.yaml + test/chaos/compose.secure-chaos.yaml; `secretsDir` holds what
   * scripts/secure-certs.sh made. Services are named secure-brokerN, secure-zkN.
   */
  static startSecure(project: string, secretsDir: string): Promise<ComposeCluster> {
    return ComposeCluster.#locked(project, 'unused', {
      files: ['compose.yaml', 'test/chaos/compose.secure-chaos.yaml'],
      services: ['secure-zk1', 'secure-zk2', 'secure-zk3', 'secure-broker1', 'secure-broker2', 'secure-broker3'],
      portVar: 'SECURE_',
      environment: { GREGOR_SECRETS_DIR: secretsDir },
      profiles: ['secure'],
    });
  }

  static async #locked(project: string, consumerTopic: string, layout: Layout): Promise<ComposeCluster> {
    useDockerEngine();
    await acquireComposeLock();
    try {
      removeLeftoverProjects();
      return await ComposeCluster.#start(project, consumerTopic, layout);
    } catch (err) {
      // Whatever part of the project came up must not outlive the failed start.
      spawnSync('docker-compose', ['-p', project, ...layout.files.flatMap((f) => ['-f', f]), ...layout.profiles.flatMap((p) => ['--profile', p]), 'down', '-v', '--timeout', '0'], { cwd: REPO, stdio: 'ignore', timeout: 120_000, env: { ...process.env, ...layout.environment } });
      releaseComposeLock();
      throw err;
    }
  }

  static async #start(project: string, consumerTopic: string, layout: Layout): Promise<ComposeCluster> {
    buildImages();
    const { DockerComposeEnvironment, Wait } = await import('testcontainers');
    const ports = await freePorts(11);
    const group = `${consumerTopic}-group`;
    const environment: Record<string, string> = {
      ...layout.environment,
      GREGOR_CONSUMER1_PORT: String(ports[9]),
      GREGOR_CONSUMER2_PORT: String(ports[10]),
      GREGOR_CONSUMER_GROUP: group,
      GREGOR_CONSUMER_TOPICS: consumerTopic,
      GREGOR_HTTP_TOKEN: HTTP_TOKEN,
    };
    for (let i = 0; i < 3; i++) {
      environment[`GREGOR_${layout.portVar}BROKER${i + 1}_PORT`] = String(ports[i]);
      environment[`GREGOR_${layout.portVar}HTTP${i + 1}_PORT`] = String(ports[3 + i]);
      environment[`GREGOR_${layout.portVar}ZK${i + 1}_PORT`] = String(ports[6 + i]);
    }
    let compose = new DockerComposeEnvironment(REPO, layout.files)
      .withProjectName(project)
      .withEnvironment(environment)
      .withDefaultWaitStrategy(Wait.forHealthCheck())
      .withProfiles(...layout.profiles)
      .withStartupTimeout(120_000);
    // Compose v1 (docker-compose, the only one on Debian bookworm) when it is there, else `docker compose`.
    if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0) {
      compose = compose.withClientOptions({ executable: { standalone: true, executablePath: 'docker-compose' } });
    }
    const env = await compose.up(layout.services);
    const containers = await projectContainers(project, layout.services);
    const zk = new ZkSession({
      connectString: ports.slice(6, 9).map((p) => `127.0.0.1:${p}`).join(','),
      sessionTimeoutMs: 10_000,
      operationTimeoutMs: 5_000,
      logger: silentLogger(),
    });
    await zk.start();
    return new ComposeCluster(project, ports, group, compose, env, containers, zk);
  }

  /** Starts the two consumer services (after the demo-topic job they depend on) and waits for them to be healthy. */
  async startConsumers(): Promise<void> {
    try {
      await this.#compose.up(CONSUMERS);
    } catch (err) {
      // compose v1 refuses to start them while a dependency's healthcheck is failing (a slow check on a loaded
      // machine): wait until every running service is healthy again, then once more.
      if (!String(err).includes('is unhealthy')) throw err;
      for (const [service, container] of this.#containers) {
        const { State } = await container.inspect();
        if (State.Running && State.Health) await this.waitHealthy(service, 90_000).catch(() => undefined);
      }
      await this.#compose.up(CONSUMERS);
    }
    for (const [service, container] of await projectContainers(this.project, CONSUMERS)) this.#containers.set(service, container);
  }

  /** Owner (consumer thread id) of every partition of `topic` in the group, from /consumers/<group>/owners. */
  async owners(topic: string, partitions: number[]): Promise<(string | null)[]> {
    return Promise.all(partitions.map((p) => this.kafkaZk.getPartitionOwner(this.consumerGroup, topic, p)));
  }

  /** A consumer service's GET /v1/partitions. */
  async consumerPartitions(index: number): Promise<{ topic: string; partition: number; lag: number | null; consumedOffset: number }[]> {
    const res = await fetch(`http://127.0.0.1:${this.consumerPorts[index - 1]}/v1/partitions`);
    if (!res.ok) throw new Error(`consumer${index} /v1/partitions: ${res.status}`);
    return ((await res.json()) as { partitions: { topic: string; partition: number; lag: number | null; consumedOffset: number }[] }).partitions;
  }

  bootstrap(): string {
    return this.brokerPorts.map((p) => `127.0.0.1:${p}`).join(',');
  }

  /** Headers of an HTTP admin write (compose turns the token on). */
  httpAuth(): Record<string, string> {
    return { authorization: `Bearer ${HTTP_TOKEN}` };
  }

  httpUrl(brokerId: number): string {
    return `http://127.0.0.1:${this.httpPorts[brokerId - 1]}`;
  }

  #container(service: string): DockerContainer {
    const c = this.#containers.get(service);
    if (!c) throw new Error(`no container for service ${service}`);
    return c;
  }

  /** `docker kill` (SIGKILL): the process dies with no shutdown at all. */
  kill(service: string): Promise<unknown> {
    return this.#container(service).kill();
  }

  /** Starts a killed container again (same volumes, same published ports). */
  startService(service: string): Promise<unknown> {
    return this.#container(service).start();
  }

  pause(service: string): Promise<unknown> {
    return this.#container(service).pause();
  }

  unpause(service: string): Promise<unknown> {
    return this.#container(service).unpause();
  }

  /** Resolves when the container's healthcheck reports healthy (bounded). */
  async waitHealthy(service: string, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const { State } = await this.#container(service).inspect();
      if (State.Running && !State.Paused && State.Health?.Status === 'healthy') return;
      if (Date.now() > deadline) throw new Error(`${service} not healthy after ${timeoutMs} ms (${State.Health?.Status ?? 'no health'})`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }

  async partitionState(topic: string, partition: number) {
    return (await this.kafkaZk.getPartitionState(topic, partition))?.state ?? null;
  }

  controllerId(): Promise<number | null> {
    return this.kafkaZk.getControllerId();
  }

  /**
   * Remote ports of the service's established TCP connections (IPv4 and IPv6), from /proc/net/tcp{,6} inside
   * its container: which broker listeners a client container talks to.
   */
  connectedPorts(service: string): number[] {
    const ps = spawnSync('docker', ['ps', '-q', '--filter', `label=com.docker.compose.project=${this.project}`, '--filter', `label=com.docker.compose.service=${service}`], { encoding: 'utf8', timeout: 30_000 });
    const id = ps.stdout.trim().split('\n')[0];
    if (ps.status !== 0 || !id) throw new Error(`no running container for ${service}: ${ps.stderr}`);
    const r = spawnSync('docker', ['exec', id, 'cat', '/proc/net/tcp', '/proc/net/tcp6'], { encoding: 'utf8', timeout: 30_000 });
    if (r.status !== 0) throw new Error(`docker exec ${service} cat /proc/net/tcp: ${r.stderr}`);
    const ports: number[] = [];
    for (const line of r.stdout.split('\n')) {
      // sl local_address rem_address st ...: addresses are HEXIP:HEXPORT, state 01 is ESTABLISHED.
      const f = line.trim().split(/\s+/);
      if (f[3] === '01' && f[2]?.includes(':')) ports.push(parseInt(f[2].split(':')[1]!, 16));
    }
    return ports;
  }

  /** `docker-compose down -v`: containers, network and volumes (the consumers' too). */
  async down(): Promise<void> {
    await this.#zkSession.close().catch(() => {});
    for (const c of this.#containers.values()) {
      if ((await c.inspect().catch(() => null))?.State.Paused) await c.unpause().catch(() => {});
    }
    // Killed first (the cluster is thrown away): testcontainers passes `-t` only for a non-zero timeout, so
    // `timeout: 0` alone left compose to SIGTERM the brokers and wait while their controlled shutdowns failed
    // against the ZooKeeper containers stopped beside them (~25 s of every teardown).
    await Promise.all([...this.#containers.values()].map((c) => c.kill().catch(() => {})));
    try {
      await this.#env.down({ removeVolumes: true, timeout: 0 });
    } finally {
      releaseComposeLock();
    }
  }
}

async function projectContainers(project: string, services: string[]): Promise<Map<string, DockerContainer>> {
  const { getContainerRuntimeClient } = await import('testcontainers');
  const client = await getContainerRuntimeClient();
  const containers = new Map<string, DockerContainer>();
  for (const info of await client.container.list()) {
    const service = info.Labels['com.docker.compose.service'];
    if (info.Labels['com.docker.compose.project'] === project && service && services.includes(service)) {
      containers.set(service, client.container.getById(info.Id) as unknown as DockerContainer);
    }
  }
  for (const s of services) if (!containers.has(s)) throw new Error(`compose started no container for ${s}`);
  return containers;
}

/**
 * Removes what earlier test runs that were killed left behind: containers, networks and volumes of the test
 * projects (gregorchaos<pid>, gregorjepsen<pid>, gregorsecure<pid>) whose worker process is gone. Called holding the compose lock,
 * so no live run's cluster can be among them; leftovers would otherwise hold CPU and memory and make the
 * next cluster's health checks fail.
 */
function removeLeftoverProjects(): void {
  const docker = (...args: string[]) => spawnSync('docker', args, { encoding: 'utf8', timeout: 120_000 });
  const label = (kind: 'ps' | 'network' | 'volume') => {
    const args = kind === 'ps' ? ['ps', '-a'] : [kind, 'ls'];
    const id = kind === 'volume' ? '{{.Name}}' : '{{.ID}}';
    const r = docker(...args, '--filter', 'label=com.docker.compose.project', '--format', `${id} {{.Label "com.docker.compose.project"}}`);
    if (r.status !== 0) throw new Error(`docker ${args.join(' ')} failed: ${r.stderr}`);
    return r.stdout.split('\n').filter(Boolean).map((line) => line.split(' ') as [string, string]);
  };
  const stale = (project: string) => {
    const m = /^gregor(?:chaos|jepsen|secure)(\d+)$/.exec(project);
    if (!m) return false;
    try {
      process.kill(Number(m[1]), 0);
      return false;
    } catch (err) {
      return (err as NodeJS.ErrnoException).code === 'ESRCH';
    }
  };
  const containers = label('ps').filter(([, p]) => stale(p));
  if (containers.length > 0) {
    // Paused containers do not die on `rm -f` until unpaused.
    docker('unpause', ...containers.map(([id]) => id));
    const r = docker('rm', '-f', '-v', ...containers.map(([id]) => id));
    if (r.status !== 0) throw new Error(`removing leftover containers of ${[...new Set(containers.map(([, p]) => p))].join(', ')} failed: ${r.stderr}`);
  }
  for (const [id] of label('network').filter(([, p]) => stale(p))) docker('network', 'rm', id);
  for (const [id] of label('volume').filter(([, p]) => stale(p))) docker('volume', 'rm', '-f', id);
}

/** Rebuilds gregor/broker and gregor/zookeeper from the current build (every package's dist), so the containers run this code. */
function buildImages(): void {
  const r = spawnSync('bash', [join(REPO, 'docker', 'build.sh')], { env: { ...process.env, GREGOR_SKIP_TSC: '1' }, encoding: 'utf8', timeout: 180_000 });
  if (r.status !== 0) throw new Error(`docker/build.sh failed (${r.status ?? r.signal}): ${(r.stderr || r.stdout).slice(-2000)}`);
}
