import { describe, expect, it } from 'vitest';
import { silentLogger } from '@gregor/common';
import type { ProducerIdBlock } from '@gregor/zookeeper';
import { ProducerIdManager } from './producer-id-manager.js';

/** Block claims are ZooKeeper's (tested against a real one in packages/zookeeper); here only the hand-out. */
function claims() {
  let end = -1;
  const calls: number[] = [];
  return {
    calls,
    claim: async (brokerId: number): Promise<ProducerIdBlock> => {
      calls.push(brokerId);
      await new Promise((r) => setTimeout(r, 5));
      const block = { brokerId, blockStart: end + 1, blockEnd: end + 3 };
      end += 3;
      return block;
    },
  };
}

describe('ProducerIdManager', () => {
  it('hands out the ids of its block in order, then claims the next block', async () => {
    const c = claims();
    const m = new ProducerIdManager(2, c.claim, silentLogger());
    await m.startup();
    const ids = [];
    for (let i = 0; i < 7; i++) ids.push(await m.generateProducerId());
    expect(ids).toEqual([0, 1, 2, 3, 4, 5, 6]);
    expect(c.calls).toEqual([2, 2, 2]);
  });

  it('concurrent requests share one claim and never get the same id', async () => {
    const c = claims();
    const m = new ProducerIdManager(1, c.claim, silentLogger());
    const ids = await Promise.all(Array.from({ length: 10 }, () => m.generateProducerId()));
    expect(new Set(ids).size).toBe(10);
    expect(c.calls.length).toBe(4);
  });

  it('a failed claim fails the request and is tried again next time', async () => {
    let fail = true;
    const m = new ProducerIdManager(1, async (b) => {
      if (fail) throw new Error('ZooKeeper unavailable');
      return { brokerId: b, blockStart: 1000, blockEnd: 1999 };
    }, silentLogger());
    await expect(m.generateProducerId()).rejects.toThrow(/unavailable/);
    fail = false;
    expect(await m.generateProducerId()).toBe(1000);
  });
});
