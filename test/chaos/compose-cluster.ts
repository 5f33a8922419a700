// Chaos-test support: the compose.yaml cluster (3 ZooKeeper + 3 broker containers) started through
// testcontainers' DockerComposeEnvironment on free host ports, with docker kill/start/pause/unpause of
// single services and ZooKeeper reads of partition state and the controller.
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { silentLogger } from '@gregor/common';
import { freePorts } from '@gregor/launcher';
import { KafkaZkClient, ZkClient } from '@gregor/zookeeper';
import type { StartedDockerComposeEnvironment } from 'testcontainers';
import { useDockerEngine } from './docker-env.js';

const REPO = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const SERVICES = ['zk1', 'zk2', 'zk3', 'broker1', 'broker2', 'broker3'];

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
  readonly #env: StartedDockerComposeEnvironment;
  readonly #containers: Map<string, DockerContainer>;
  readonly #zkClient: ZkClient;
  readonly kafkaZk: KafkaZkClient;

  private constructor(project: string, ports: number[], env: StartedDockerComposeEnvironment, containers: Map<string, DockerContainer>, zk: ZkClient) {
    this.project = project;
    this.brokerPorts = ports.slice(0, 3);
    this.httpPorts = ports.slice(3, 6);
    this.zkPorts = ports.slice(6, 9);
    this.#env = env;
    this.#containers = containers;
    this.#zkClient = zk;
    this.kafkaZk = new KafkaZkClient(zk);
  }

  /** `docker-compose up` of compose.yaml + test/chaos/compose.chaos.yaml, waiting for every healthcheck. */
  static async start(project: string): Promise<ComposeCluster> {
    useDockerEngine();
    const { DockerComposeEnvironment, Wait, getContainerRuntimeClient } = await import('testcontainers');
    const ports = await freePorts(9);
    const environment: Record<string, string> = {};
    for (let i = 0; i < 3; i++) {
      environment[`GREGOR_BROKER${i + 1}_PORT`] = String(ports[i]);
      environment[`GREGOR_HTTP${i + 1}_PORT`] = String(ports[3 + i]);
      environment[`GREGOR_ZK${i + 1}_PORT`] = String(ports[6 + i]);
    }
    let compose = new DockerComposeEnvironment(REPO, ['compose.yaml', 'test/chaos/compose.chaos.yaml'])
      .withProjectName(project)
      .withEnvironment(environment)
      .withDefaultWaitStrategy(Wait.forHealthCheck())
      .withStartupTimeout(120_000);
    // Compose v1 (docker-compose, the only one on Debian bookworm) when it is there, else `docker compose`.
    if (spawnSync('docker-compose', ['version'], { stdio: 'ignore' }).status === 0) {
      compose = compose.withClientOptions({ executable: { standalone: true, executablePath: 'docker-compose' } });
    }
    const env = await compose.up(SERVICES);
    const client = await getContainerRuntimeClient();
    const containers = new Map<string, DockerContainer>();
    for (const info of await client.container.list()) {
      if (info.Labels['com.docker.compose.project'] !== project) continue;
      containers.set(info.Labels['com.docker.compose.service']!, client.container.getById(info.Id) as unknown as DockerContainer);
    }
    for (const s of SERVICES) if (!containers.has(s)) throw new Error(`compose started no container for ${s}`);
    const zk = await ZkClient.connect({
      connectString: ports.slice(6).map((p) => `127.0.0.1:${p}`).join(','),
      sessionTimeoutMs: 30_000,
      operationTimeoutMs: 30_000,
      logger: silentLogger(),
    });
    return new ComposeCluster(project, ports, env, containers, zk);
  }

  bootstrap(): string {
    return this.brokerPorts.map((p) => `127.0.0.1:${p}`).join(',');
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

  /** `docker-compose down -v`: containers, network and volumes. */
  async down(): Promise<void> {
    await this.#zkClient.close().catch(() => {});
    for (const c of this.#containers.values()) {
      if ((await c.inspect().catch(() => null))?.State.Paused) await c.unpause().catch(() => {});
    }
    await this.#env.down({ removeVolumes: true, timeout: 0 });
  }
}
