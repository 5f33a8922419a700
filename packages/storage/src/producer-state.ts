import { ErrorCode, GregorError } from '@gregor/common';

/**
 * Per-producer state of one partition (KIP-98, Kafka 2.4's ProducerStateEntry / ProducerAppendInfo): the producer
 * epoch and the last few batches' sequence ranges with their offsets, so that a retried batch is recognised and
 * answered with its original offsets, and a gap or a fenced epoch is refused.
 */

export const NO_PRODUCER_ID = -1;
export const NO_PRODUCER_EPOCH = -1;
export const NO_SEQUENCE = -1;
/** Batches remembered per producer: a producer keeps at most 5 requests in flight per partition. */
export const NUM_BATCHES_TO_RETAIN = 5;

const INT32_MAX = 0x7fffffff;

/** `sequence + increment`, wrapping past Int.MAX to 0 (DefaultRecordBatch.incrementSequence). */
export function incrementSequence(sequence: number, increment: number): number {
  if (sequence > INT32_MAX - increment) return increment - (INT32_MAX - sequence) - 1;
  return sequence + increment;
}

/** `sequence - decrement`, the inverse wrap (DefaultRecordBatch.decrementSequence). */
export function decrementSequence(sequence: number, decrement: number): number {
  if (sequence < decrement) return INT32_MAX - (decrement - sequence) + 1;
  return sequence - decrement;
}

/** One appended batch of a producer, as cached for duplicate detection. */
export interface BatchMetadata {
  lastSeq: number;
  lastOffset: number;
  /** lastOffset - firstOffset. */
  offsetDelta: number;
  /** The batch's max timestamp (a duplicate's answer carries it as log_append_time). */
  timestamp: number;
}

export function batchFirstSeq(b: BatchMetadata): number {
  return decrementSequence(b.lastSeq, b.offsetDelta);
}

export function batchFirstOffset(b: BatchMetadata): number {
  return b.lastOffset - b.offsetDelta;
}

/** What a producer's last batches were; oldest first, at most NUM_BATCHES_TO_RETAIN. */
export class ProducerStateEntry {
  readonly producerId: number;
  producerEpoch: number;
  readonly batches: BatchMetadata[];
  coordinatorEpoch: number;
  /** Max timestamp of the last batch; expiry is measured from it. */
  lastTimestamp: number;
  /** First offset of an open transaction, -1 if none (gregor never opens one). */
  currentTxnFirstOffset: number;

  constructor(producerId: number, init: Partial<Pick<ProducerStateEntry, 'producerEpoch' | 'coordinatorEpoch' | 'lastTimestamp' | 'currentTxnFirstOffset'>> = {}, batches: BatchMetadata[] = []) {
    this.producerId = producerId;
    this.producerEpoch = init.producerEpoch ?? NO_PRODUCER_EPOCH;
    this.coordinatorEpoch = init.coordinatorEpoch ?? -1;
    this.lastTimestamp = init.lastTimestamp ?? -1;
    this.currentTxnFirstOffset = init.currentTxnFirstOffset ?? -1;
    this.batches = batches;
  }

  get isEmpty(): boolean {
    return this.batches.length === 0;
  }
  get lastSeq(): number {
    return this.batches.at(-1)?.lastSeq ?? NO_SEQUENCE;
  }
  get lastDataOffset(): number {
    return this.batches.at(-1)?.lastOffset ?? -1;
  }
  get lastOffsetDelta(): number {
    return this.batches.at(-1)?.offsetDelta ?? 0;
  }

  /** A new epoch forgets the batches of the old one. */
  maybeUpdateProducerEpoch(epoch: number): boolean {
    if (this.producerEpoch === epoch) return false;
    this.batches.length = 0;
    this.producerEpoch = epoch;
    return true;
  }

  addBatch(epoch: number, lastSeq: number, lastOffset: number, offsetDelta: number, timestamp: number): void {
    this.maybeUpdateProducerEpoch(epoch);
    this.#addBatchMetadata({ lastSeq, lastOffset, offsetDelta, timestamp });
    this.lastTimestamp = timestamp;
  }

  #addBatchMetadata(b: BatchMetadata): void {
    if (this.batches.length === NUM_BATCHES_TO_RETAIN) this.batches.shift();
    this.batches.push(b);
  }

  /** Folds in what an append added (ProducerStateEntry.update). */
  update(next: ProducerStateEntry): void {
    this.maybeUpdateProducerEpoch(next.producerEpoch);
    for (const b of next.batches) this.#addBatchMetadata(b);
    this.coordinatorEpoch = next.coordinatorEpoch;
    this.currentTxnFirstOffset = next.currentTxnFirstOffset;
    this.lastTimestamp = next.lastTimestamp;
  }

  /** The cached batch with exactly this epoch and sequence range: the batch is a retry. */
  findDuplicateBatch(epoch: number, firstSeq: number, lastSeq: number): BatchMetadata | undefined {
    if (epoch !== this.producerEpoch) return undefined;
    return this.batches.find((b) => batchFirstSeq(b) === firstSeq && b.lastSeq === lastSeq);
  }

  /** Drops cached batches wholly below `offset` (their records are gone from the log). */
  removeBatchesOlderThan(offset: number): void {
    while (this.batches.length > 0 && this.batches[0]!.lastOffset < offset) this.batches.shift();
  }
}

/** Where an append comes from: client appends are checked, replicated ones (and log replays) are taken as they are. */
export type AppendOrigin = 'client' | 'replication';

/**
 * Validates one producer's batches of one append against its state before the append (Kafka 2.4's
 * ProducerAppendInfo) and collects the updated entry, applied only once the append is written.
 */
export class ProducerAppendInfo {
  readonly producerId: number;
  readonly #current: ProducerStateEntry;
  readonly #origin: AppendOrigin;
  readonly #updated: ProducerStateEntry;
  readonly #where: string;

  constructor(producerId: number, current: ProducerStateEntry, origin: AppendOrigin, where: string) {
    this.producerId = producerId;
    this.#current = current;
    this.#origin = origin;
    this.#where = where;
    this.#updated = new ProducerStateEntry(producerId, {
      producerEpoch: current.producerEpoch,
      coordinatorEpoch: current.coordinatorEpoch,
      lastTimestamp: current.lastTimestamp,
      currentTxnFirstOffset: current.currentTxnFirstOffset,
    });
  }

  appendDataBatch(epoch: number, firstSeq: number, lastSeq: number, lastTimestamp: number, firstOffset: number, lastOffset: number): void {
    if (this.#origin === 'client') {
      this.#checkProducerEpoch(epoch, firstOffset);
      this.#checkSequence(epoch, firstSeq, firstOffset);
    }
    this.#updated.addBatch(epoch, lastSeq, lastOffset, lastOffset - firstOffset, lastTimestamp);
  }

  toEntry(): ProducerStateEntry {
    return this.#updated;
  }

  #checkProducerEpoch(epoch: number, offset: number): void {
    if (epoch < this.#updated.producerEpoch) {
      throw new GregorError(
        ErrorCode.INVALID_PRODUCER_EPOCH,
        `Producer's epoch at offset ${offset} is no longer valid in partition ${this.#where}: ${epoch} (request epoch), ${this.#updated.producerEpoch} (current epoch)`,
      );
    }
  }

  /** Kafka 2.4's rules (kafka-next.md §4.3): a new epoch starts at 0; an unknown producer must start at 0 too. */
  #checkSequence(epoch: number, firstSeq: number, offset: number): void {
    const updated = this.#updated;
    if (epoch !== updated.producerEpoch) {
      if (firstSeq === 0) return;
      if (updated.producerEpoch !== NO_PRODUCER_EPOCH) {
        throw new GregorError(
          ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
          `Invalid sequence number for new epoch at offset ${offset} in partition ${this.#where}: ${epoch} (request epoch), ${firstSeq} (seq. number)`,
        );
      }
      throw new GregorError(
        ErrorCode.UNKNOWN_PRODUCER_ID,
        `Found no record of producerId=${this.producerId} on the broker at offset ${offset} in partition ${this.#where}. ` +
          `It is possible that the last message with the producerId=${this.producerId} has been removed due to hitting the retention limit.`,
      );
    }
    const currentLastSeq = !updated.isEmpty ? updated.lastSeq : epoch === this.#current.producerEpoch ? this.#current.lastSeq : NO_SEQUENCE;
    if (currentLastSeq === NO_SEQUENCE && firstSeq !== 0) {
      // The epoch is known but no batch is (only a transaction marker was left).
      throw new GregorError(
        ErrorCode.UNKNOWN_PRODUCER_ID,
        `Local producer state matches expected epoch ${epoch} for producerId=${this.producerId} at offset ${offset} in partition ${this.#where}, ` +
          `but the next expected sequence number is not known.`,
      );
    }
    if (currentLastSeq !== NO_SEQUENCE && !inSequence(currentLastSeq, firstSeq)) {
      throw new GregorError(
        ErrorCode.OUT_OF_ORDER_SEQUENCE_NUMBER,
        `Out of order sequence number for producerId ${this.producerId} at offset ${offset} in partition ${this.#where}: ${firstSeq} (incoming seq. number), ${currentLastSeq} (current end sequence number)`,
      );
    }
  }
}

function inSequence(lastSeq: number, nextSeq: number): boolean {
  return nextSeq === lastSeq + 1 || (nextSeq === 0 && lastSeq === INT32_MAX);
}
