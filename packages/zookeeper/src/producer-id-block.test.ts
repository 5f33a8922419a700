import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CorruptDataError } from '@gregor/common';
import { startTestZooKeeper, type TestZooKeeper } from './test-zookeeper.js';
import { KafkaZkClient } from './kafka-zk-client.js';
import { decodeProducerIdBlock, encodeProducerIdBlock, nextProducerIdBlock } from './producer-id-block.js';

describe('/latest_producer_id_block data', () => {
  it("writes Kafka's JSON: decimal-string bounds, inclusive", () => {
    expect(encodeProducerIdBlock({ brokerId: 2, blockStart: 1000, blockEnd: 1999 }).toString()).toBe('{"version":1,"broker":2,"block_start":"1000","block_end":"1999"}');
    expect(decodeProducerIdBlock('{"version":1,"broker":2,"block_start":"1000","block_end":"1999"}')).toEqual({ brokerId: 2, blockStart: 1000, blockEnd: 1999 });
  });

  it('reads the empty znode as no block; rejects garbage', () => {
    expect(decodeProducerIdBlock(Buffer.alloc(0))).toBeNull();
    expect(() => decodeProducerIdBlock('{"version":2,"broker":1,"block_start":"0","block_end":"999"}')).toThrow(CorruptDataError);
    expect(() => decodeProducerIdBlock('{"version":1,"broker":1,"block_start":"-5","block_end":"999"}')).toThrow(/block_start/);
    expect(() => decodeProducerIdBlock('{"version":1,"broker":1,"block_start":"9","block_end":"1"}')).toThrow(/below/);
    expect(() => decodeProducerIdBlock('nope')).toThrow(/not JSON/);
  });

  it('the first block is 0..999, then (end+1)..(end+1000)', () => {
    expect(nextProducerIdBlock(1, null)).toEqual({ brokerId: 1, blockStart: 0, blockEnd: 999 });
    expect(nextProducerIdBlock(3, { brokerId: 1, blockStart: 0, blockEnd: 999 })).toEqual({ brokerId: 3, blockStart: 1000, blockEnd: 1999 });
    expect(() => nextProducerIdBlock(1, { brokerId: 1, blockStart: 0, blockEnd: Number.MAX_SAFE_INTEGER - 10 })).toThrow(/exhausted/);
  });
});

describe('KafkaZkClient.claimProducerIdBlock (real ZooKeeper)', () => {
  let zk: TestZooKeeper;
  beforeAll(async () => {
    zk = await startTestZooKeeper();
  });
  afterAll(async () => {
    await zk?.stop();
  });

  it('claims 0..999 from the empty znode, then consecutive blocks; brokers racing never share a block', async () => {
    const a = new KafkaZkClient(await zk.client());
    await a.ensurePersistentPaths();
    expect((await a.zk.getData('/latest_producer_id_block')).data.length).toBe(0);
    expect(await a.getProducerIdBlock()).toBeNull();
    expect(await a.claimProducerIdBlock(1)).toEqual({ brokerId: 1, blockStart: 0, blockEnd: 999 });
    expect((await a.zk.getData('/latest_producer_id_block')).data.toString()).toBe('{"version":1,"broker":1,"block_start":"0","block_end":"999"}');

    const clients = [a, new KafkaZkClient(await zk.client()), new KafkaZkClient(await zk.client())];
    // Three brokers racing, each claiming one block at a time (as a broker's ProducerIdManager does).
    const perBroker = await Promise.all(
      clients.map(async (c, i) => {
        const mine = [];
        for (let k = 0; k < 4; k++) mine.push(await c.claimProducerIdBlock(i + 1));
        return mine;
      }),
    );
    const claims = perBroker.flat();
    const starts = claims.map((b) => b.blockStart).sort((x, y) => x - y);
    expect(starts).toEqual(Array.from({ length: 12 }, (_, i) => (i + 1) * 1000));
    for (const b of claims) expect(b.blockEnd - b.blockStart).toBe(999);
    expect((await a.getProducerIdBlock())!.blockEnd).toBe(12_999);
  });

  it('recreates a missing znode', async () => {
    const c = new KafkaZkClient(await zk.client());
    await c.zk.delete('/latest_producer_id_block');
    expect(await c.claimProducerIdBlock(5)).toEqual({ brokerId: 5, blockStart: 0, blockEnd: 999 });
  });
});
