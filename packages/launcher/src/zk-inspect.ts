import zookeeper from 'node-zookeeper-client';

/** What ZooKeeper says about the brokers of a cluster. */
export interface ZkClusterView {
  /** Ids under /brokers/ids (brokers holding a live session), sorted. */
  registeredBrokers: number[];
  /** Broker id in /controller, or null when no controller is elected. */
  controllerId: number | null;
}

/**
 * One short-lived ZooKeeper session that reads /brokers/ids and /controller. Resolves null when
 * ZooKeeper cannot be reached within `timeoutMs` (node-zookeeper-client has no timeouts itself,
 * so the client is closed on every path).
 */
export function readZkClusterView(connectString: string, timeoutMs = 3000): Promise<ZkClusterView | null> {
  return new Promise((resolve) => {
    const client = zookeeper.createClient(connectString, { sessionTimeout: 4000, retries: 0, spinDelay: 200 });
    let done = false;
    const finish = (view: ZkClusterView | null): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      client.close();
      resolve(view);
    };
    const timer = setTimeout(() => finish(null), timeoutMs);
    client.once('connected', () => {
      client.getChildren('/brokers/ids', (error, children) => {
        const registeredBrokers =
          error || !children ? [] : children.map(Number).filter(Number.isInteger).sort((a, b) => a - b);
        client.getData('/controller', (err, data) => {
          let controllerId: number | null = null;
          if (!err && data) {
            try {
              const id = (JSON.parse(data.toString('utf8')) as { brokerid?: unknown }).brokerid;
              controllerId = typeof id === 'number' ? id : null;
            } catch {
              controllerId = null;
            }
          }
          finish({ registeredBrokers, controllerId });
        });
      });
    });
    client.connect();
  });
}
