import type { Logger } from '@gregor/common';
import type { ProducerIdBlock } from '@gregor/zookeeper';

/**
 * Hands out producer ids for InitProducerId (Kafka's ProducerIdManager): ids come from a block of 1000 this broker
 * claimed in ZooKeeper (`/latest_producer_id_block`), one after the other; when the block is used up the next one
 * is claimed. Claims are serialized: a broker never has two in flight (the znode write relies on it).
 */
export class ProducerIdManager {
  readonly #brokerId: number;
  readonly #claim: (brokerId: number) => Promise<ProducerIdBlock>;
  readonly #log: Logger;
  #block: ProducerIdBlock | null = null;
  #next = 0;
  #claiming: Promise<void> | null = null;

  constructor(brokerId: number, claim: (brokerId: number) => Promise<ProducerIdBlock>, log: Logger) {
    this.#brokerId = brokerId;
    this.#claim = claim;
    this.#log = log;
  }

  /** Claims the first block, as Kafka does when the broker starts. */
  async startup(): Promise<void> {
    await this.#claimNewBlock();
  }

  /** The current block, for tests and admin. */
  get currentBlock(): ProducerIdBlock | null {
    return this.#block;
  }

  async generateProducerId(): Promise<number> {
    for (;;) {
      if (this.#block && this.#next <= this.#block.blockEnd) return this.#next++;
      await this.#claimNewBlock();
    }
  }

  #claimNewBlock(): Promise<void> {
    this.#claiming ??= (async () => {
      try {
        const block = await this.#claim(this.#brokerId);
        this.#block = block;
        this.#next = block.blockStart;
        this.#log.info({ blockStart: block.blockStart, blockEnd: block.blockEnd }, 'claimed a producer id block');
      } finally {
        this.#claiming = null;
      }
    })();
    return this.#claiming;
  }
}
