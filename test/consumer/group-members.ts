// Test support for the consumer connector tests: in-process members that record what they read, and
// `gregor consume --group` members as child processes that can be SIGKILLed and SIGSTOPped.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { createLogger, silentLogger, type Logger } from '@gregor/common';
import { ZookeeperConsumerConnector, type ConsumerProperties } from '@gregor/consumer';
import type { KafkaZkClient } from '@gregor/zookeeper';

const CLI = join(import.meta.dirname, '../../packages/cli/dist/main.js');

/** value → how many times any member read it. */
export type Seen = Map<string, number>;

export function record(seen: Seen, value: string): void {
  seen.set(value, (seen.get(value) ?? 0) + 1);
}

/** An in-process member draining all its streams into `seen`. */
export class Member {
  readonly connector: ZookeeperConsumerConnector;
  readonly done: Promise<void>;

  private constructor(connector: ZookeeperConsumerConnector, done: Promise<void>) {
    this.connector = connector;
    this.done = done;
  }

  static async start(props: ConsumerProperties, topic: string, seen: Seen, streams = 1): Promise<Member> {
    const connector = await ZookeeperConsumerConnector.create(props, { logger: testLogger() });
    const created = await connector.createMessageStreams({ [topic]: streams });
    const done = Promise.all(
      created[topic]!.map(async (s) => {
        for await (const m of s) record(seen, m.value!.toString());
      }),
    ).then(() => undefined);
    return new Member(connector, done);
  }

  owned(): string[] {
    return this.connector.ownedPartitions().map((p) => `${p.topic}-${p.partition}`);
  }

  async stop(): Promise<void> {
    await this.connector.shutdown();
    await this.done;
  }
}

/** `gregor consume --group ...` as a child process; its stdout lines go to `seen`. */
export class CliMember {
  readonly proc: ChildProcess;
  readonly exited: Promise<number | null>;
  stderr = '';

  constructor(args: string[], seen: Seen) {
    this.proc = spawn(process.execPath, [CLI, 'consume', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: process.env.TEST_LOG ?? 'warn' } });
    createInterface({ input: this.proc.stdout! }).on('line', (line) => record(seen, line));
    this.proc.stderr!.on('data', (d: Buffer) => {
      this.stderr = (this.stderr + d.toString()).slice(-20_000);
    });
    this.exited = new Promise((resolve) => this.proc.once('exit', (code) => resolve(code)));
  }

  signal(signal: NodeJS.Signals): void {
    this.proc.kill(signal);
  }
}

/** topic-partition → owner text, for partitions 0..n-1 (null: unowned). */
export async function owners(zk: KafkaZkClient, group: string, topic: string, partitions: number): Promise<(string | null)[]> {
  return Promise.all(Array.from({ length: partitions }, (_, p) => zk.getPartitionOwner(group, topic, p)));
}

function testLogger(): Logger {
  return process.env.TEST_LOG ? createLogger('consumer', { level: process.env.TEST_LOG }) : silentLogger();
}

/** Runs one `gregor` command to its end. */
export function gregor(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [CLI, ...args], { env: { ...process.env, LOG_LEVEL: 'warn' }, timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? Number((error as { code?: number }).code ?? 1) : 0, stdout, stderr });
    });
  });
}

/** `gregor consumer-service` as a child process; resolves once it prints where it listens. */
export async function startConsumerService(configFile: string): Promise<{ proc: ChildProcess; url: string; exited: Promise<number | null>; output: () => string }> {
  const proc = spawn(process.execPath, [CLI, 'consumer-service', '--config', configFile], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, LOG_LEVEL: 'warn' } });
  let out = '';
  proc.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (code) => resolve(code)));
  const url = await new Promise<string>((resolve, reject) => {
    createInterface({ input: proc.stdout! }).on('line', (line) => {
      const m = /listening on (http:\/\/\S+)/.exec(line);
      if (m) resolve(m[1]!);
    });
    void exited.then((code) => reject(new Error(`consumer-service exited with ${code}: ${out}`)));
  });
  return { proc, url, exited, output: () => out };
}
