import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '@gregor/common';
import { startTestZooKeeper, type TestZooKeeper } from './test-zookeeper.js';
import { ZkSession } from './zk-session.js';
import { KafkaZkClient } from './kafka-zk-client.js';
import type { ZkClient } from './zk-client.js';

let zk: TestZooKeeper;
beforeAll(async () => {
  zk = await startTestZooKeeper();
});
afterAll(async () => {
  await zk?.stop();
});

function waitFor(session: ZkSession, event: string, timeoutMs: number): Promise<number> {
  const t0 = Date.now();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no ${event} within ${timeoutMs} ms`)), timeoutMs);
    session.once(event, () => {
      clearTimeout(timer);
      resolve(Date.now() - t0);
    });
  });
}

describe('ZkSession', () => {
  it('a hung ZooKeeper server is detected by the watchdog; a new session is made and onNewSession re-registers', async () => {
    const session = new ZkSession({
      connectString: zk.connectString,
      sessionTimeoutMs: 2000,
      connectAttemptMs: 1000,
      operationTimeoutMs: 1500,
      logger: silentLogger(),
    });
    const kafka = new KafkaZkClient(session);
    const sessions: string[] = [];
    session.onNewSession(async (client: ZkClient) => {
      sessions.push(client.sessionId);
      await kafka.ensurePersistentPaths();
      await kafka.registerBroker({ brokerId: 1, endpoints: [{ listener: 'PLAINTEXT', host: '127.0.0.1', port: 9092, securityProtocol: 'PLAINTEXT' }], jmxPort: -1, rack: null });
    });
    const events: string[] = [];
    for (const e of ['connected', 'disconnected', 'expired', 'sessionLost', 'newSession']) session.on(e, () => events.push(e));
    try {
      await session.start();
      expect(sessions).toHaveLength(1);
      expect(session.healthy).toBe(true);
      const firstOwner = (await session.client.exists('/brokers/ids/1'))!.ephemeralOwner;
      expect(firstOwner).toBe(session.client.sessionIdValue);

      zk.node.pause();
      const disconnected = waitFor(session, 'disconnected', 5000);
      const lost = waitFor(session, 'sessionLost', 8000);
      let resumed = false;
      try {
        // the watchdog reads every ~667 ms and gives up after ~1333 ms
        expect(await disconnected).toBeLessThan(3000);
        expect(session.healthy).toBe(false);
        expect(await lost).toBeLessThan(6000);
        const renewed = waitFor(session, 'newSession', 20_000);
        zk.node.resume();
        resumed = true;
        await renewed;
      } finally {
        if (!resumed) zk.node.resume();
      }
      expect(sessions).toHaveLength(2);
      expect(sessions[1]).not.toBe(sessions[0]);
      expect(session.healthy).toBe(true);
      expect((await session.client.exists('/brokers/ids/1'))!.ephemeralOwner).toBe(session.client.sessionIdValue);
      expect(events).toEqual(['newSession', 'disconnected', 'sessionLost', 'newSession']);
    } finally {
      await session.close();
    }
    expect(session.healthy).toBe(false);
    await expect(Promise.resolve().then(() => session.client)).rejects.toThrow(/CONNECTION_LOSS/);
  });

  it('close() removes the session ephemerals at once and stops the watchdog', async () => {
    const session = new ZkSession({ connectString: zk.connectString, sessionTimeoutMs: 2000, logger: silentLogger() });
    await session.start();
    await session.client.create('/session-eph', null, 'ephemeral');
    const observer = await zk.client();
    expect(await observer.exists('/session-eph')).not.toBeNull();
    await session.close();
    expect(await observer.exists('/session-eph')).toBeNull();
  });
});
