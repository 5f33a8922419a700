import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Connection } from '@gregor/client';
import { freePort } from '@gregor/launcher';
import { Metadata } from '@gregor/protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startZooKeeper, waitFor, type TestZooKeeper } from '../support/in-process-cluster.js';

const CLI = join(import.meta.dirname, '../../packages/cli/dist/main.js');

/** `gregor broker --config` with a server.properties written as Kafka users write them, and the env of common images. */
describe('server.properties read as Kafka reads it', () => {
  let zk: TestZooKeeper;
  let dir: string;
  let broker: ChildProcess | undefined;
  let output = '';
  beforeAll(async () => {
    zk = await startZooKeeper();
    dir = mkdtempSync(join(tmpdir(), 'gregor-props-'));
  });
  afterAll(async () => {
    if (broker && broker.exitCode === null) {
      broker.kill('SIGTERM');
      await new Promise((r) => broker!.once('exit', r));
    }
    await zk?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('spaces around "=", continuation lines, unknown settings (warned, with a suggestion) and KAFKA_CFG_* variables', async () => {
    const port = await freePort();
    const file = join(dir, 'server.properties');
    writeFileSync(
      file,
      [
        '# as in many tutorials',
        'broker.id   = 7',
        `listeners = PLAINTEXT://127.0.0.1:${port}`,
        `zookeeper.connect=${zk.connectString.split(',')[0]},\\`,
        `    ${zk.connectString}`,
        'num.partitons=3',
        'http.port=-1',
        '',
      ].join('\n'),
    );
    broker = spawn(process.execPath, [CLI, 'broker', '--config', file], {
      env: { ...process.env, KAFKA_CFG_LOG_DIRS: join(dir, 'data'), KAFKA_JMX_PORT: '9999', KAFKA_HEAP_OPTS: '-Xmx1G', LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    broker.stdout!.on('data', (d: Buffer) => (output += d.toString()));
    broker.stderr!.on('data', (d: Buffer) => (output += d.toString()));
    const md = await waitFor(
      async () => {
        if (broker!.exitCode !== null) throw new Error(`broker exited ${broker!.exitCode}: ${output}`);
        // A failed connection is closed for good: a new one per attempt.
        const conn = new Connection({ host: '127.0.0.1', port, connectTimeoutMs: 1000, requestTimeoutMs: 2000 });
        try {
          return await conn.send(Metadata, { topics: null });
        } catch {
          return undefined;
        } finally {
          await conn.close();
        }
      },
      45_000,
      'broker answering Metadata',
    );
    expect(md.brokers.map((b) => [b.nodeId, b.port])).toEqual([[7, port]]);
    expect(output).toContain("The configuration 'num.partitons' was supplied but isn't a known config. Did you mean 'num.partitions'?");
    expect(output).toContain("The configuration 'jmx.port' was supplied but isn't a known config.");
    expect(output).not.toContain('heap.opts');
  }, 90_000);
});
