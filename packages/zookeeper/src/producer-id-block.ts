/**
 * `/latest_producer_id_block` (kafka.zk.ProducerIdBlockZNode, Kafka 2.4): the last block of producer ids a broker
 * claimed, `{"version":1,"broker":<id>,"block_start":"<n>","block_end":"<m>"}` with decimal-string bounds, both
 * inclusive. Brokers claim the next block with a conditional write on the znode's version.
 */
import { CorruptDataError } from '@gregor/common';

/** Ids per block (ProducerIdManager.PidBlockSize). */
export const PRODUCER_ID_BLOCK_SIZE = 1000;

export interface ProducerIdBlock {
  brokerId: number;
  /** First id of the block. */
  blockStart: number;
  /** Last id of the block (inclusive). */
  blockEnd: number;
}

const WHAT = '/latest_producer_id_block';

export function encodeProducerIdBlock(block: ProducerIdBlock): Buffer {
  return Buffer.from(JSON.stringify({ version: 1, broker: block.brokerId, block_start: String(block.blockStart), block_end: String(block.blockEnd) }), 'utf8');
}

/** null for the empty znode every broker creates at startup: no block was claimed yet. */
export function decodeProducerIdBlock(data: Buffer | string): ProducerIdBlock | null {
  const text = (typeof data === 'string' ? data : data.toString('utf8')).trim();
  if (text === '') return null;
  let obj: unknown;
  try {
    obj = JSON.parse(text);
  } catch {
    throw new CorruptDataError(`${WHAT}: not JSON: ${JSON.stringify(text.slice(0, 200))}`);
  }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw new CorruptDataError(`${WHAT}: expected a JSON object`);
  const o = obj as Record<string, unknown>;
  if (o.version !== 1) throw new CorruptDataError(`${WHAT}: unsupported version ${JSON.stringify(o.version)}`);
  if (typeof o.broker !== 'number' || !Number.isInteger(o.broker)) throw new CorruptDataError(`${WHAT}: "broker" must be an integer`);
  const id = (key: string): number => {
    const v = o[key];
    // Kafka writes them as strings; numbers are accepted too.
    const text = typeof v === 'number' ? String(v) : v;
    if (typeof text !== 'string' || !/^\d+$/.test(text)) throw new CorruptDataError(`${WHAT}: "${key}" must be a non-negative decimal, got ${JSON.stringify(v)}`);
    const n = Number(text);
    // gregor keeps producer ids as JS numbers.
    if (!Number.isSafeInteger(n)) throw new CorruptDataError(`${WHAT}: "${key}" ${text} is beyond the producer ids gregor can hand out`);
    return n;
  };
  const block = { brokerId: o.broker, blockStart: id('block_start'), blockEnd: id('block_end') };
  if (block.blockEnd < block.blockStart) throw new CorruptDataError(`${WHAT}: block_end ${block.blockEnd} is below block_start ${block.blockStart}`);
  return block;
}

/** The block after `current` (the first block when none was claimed), as ProducerIdManager computes it. */
export function nextProducerIdBlock(brokerId: number, current: ProducerIdBlock | null): ProducerIdBlock {
  if (current === null) return { brokerId, blockStart: 0, blockEnd: PRODUCER_ID_BLOCK_SIZE - 1 };
  if (current.blockEnd > Number.MAX_SAFE_INTEGER - PRODUCER_ID_BLOCK_SIZE) {
    throw new CorruptDataError(`${WHAT}: producer ids exhausted (current block ends at ${current.blockEnd})`);
  }
  return { brokerId, blockStart: current.blockEnd + 1, blockEnd: current.blockEnd + PRODUCER_ID_BLOCK_SIZE };
}
