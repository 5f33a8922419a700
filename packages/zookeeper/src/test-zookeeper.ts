// Test helper only (not exported): a standalone ZooKeeper on a free port, tickTime 500.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, ZooKeeperNode } from '@gregor/launcher';
import { silentLogger } from '@gregor/common';
import { ZkClient, type ZkClientOptions } from './zk-client.js';

export interface TestZooKeeper {
  node: ZooKeeperNode;
  connectString: string;
  /** A client with a short session; closed by stop(). */
  client(options?: Partial<ZkClientOptions>): Promise<ZkClient>;
  stop(): Promise<void>;
}

export async function startTestZooKeeper(): Promise<TestZooKeeper> {
  const dir = mkdtempSync(join(tmpdir(), 'gregor-zk-test-'));
  const node = new ZooKeeperNode({ id: 1, dir, clientPort: await freePort(), tickTime: 500, stopGraceMs: 3000 });
  await node.start();
  const clients: ZkClient[] = [];
  return {
    node,
    connectString: node.connectString,
    async client(options = {}) {
      const client = await ZkClient.connect({ connectString: node.connectString, sessionTimeoutMs: 2000, operationTimeoutMs: 5000, logger: silentLogger(), ...options });
      clients.push(client);
      return client;
    },
    async stop() {
      await Promise.all(clients.map((c) => c.close(500)));
      if (node.isRunning()) node.resume();
      await node.kill();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
