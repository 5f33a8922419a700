import { silentLogger } from '@gregor/common';
import { decodeController } from './data.js';
import { brokerIdsPath, controllerPath } from './paths.js';
import { ZkClient } from './zk-client.js';

/** What ZooKeeper says about the brokers of a cluster. */
export interface ZkClusterView {
  /** Ids under /brokers/ids (brokers holding a live session), sorted. */
  registeredBrokers: number[];
  /** Broker id in /controller, or null when no controller is elected. */
  controllerId: number | null;
}

/**
 * One short-lived ZooKeeper session that reads /brokers/ids and /controller (for tools watching a
 * cluster from outside). Resolves null when ZooKeeper cannot be reached within `timeoutMs`; the
 * session is closed on every path.
 */
export async function readZkClusterView(connectString: string, timeoutMs = 3000): Promise<ZkClusterView | null> {
  let zk: ZkClient;
  try {
    zk = await ZkClient.connect({
      connectString,
      sessionTimeoutMs: 4000,
      connectTimeoutMs: timeoutMs,
      connectAttemptMs: timeoutMs,
      operationTimeoutMs: timeoutMs,
      logger: silentLogger(),
    });
  } catch {
    return null;
  }
  try {
    const children = await zk.getChildren(brokerIdsPath).catch(() => []);
    const registeredBrokers = children
      .map(Number)
      .filter(Number.isInteger)
      .sort((a, b) => a - b);
    const controller = await zk.getDataOrNull(controllerPath).catch(() => null);
    let controllerId: number | null = null;
    if (controller) {
      try {
        controllerId = decodeController(controller.data).brokerId;
      } catch {
        controllerId = null;
      }
    }
    return { registeredBrokers, controllerId };
  } finally {
    await zk.close(500);
  }
}
