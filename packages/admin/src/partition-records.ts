import { partitionOffset, produceRefusal, type KafkaServer } from '@gregor/broker';
import type { Acks } from '@gregor/client';
import { CorruptDataError, ErrorCode, errorName, KafkaProtocolError } from '@gregor/common';
import { decodeRecordSetPrefix, decompressionCap, Fetch, ListOffsets, Produce, type DecodedRecord } from '@gregor/protocol';
import type { AdminContext } from './admin-context.js';
import { brokerConnection } from './broker-connection.js';

/** One Fetch answer of one partition, as a consumer sees it (read uncommitted, up to the high watermark). */
export interface RecordSetRead {
  highWatermark: number;
  logStartOffset: number;
  records: Buffer;
}

/** The reads and writes of the record routes, against the partition's leader. Each throws the partition's Kafka error. */
export interface PartitionRecords {
  /** ListOffsets as a consumer asks: -1 the high watermark, -2 the log start, or the first record at or after a time (-1: none). */
  offsetFor(timestamp: number): Promise<number>;
  /** A Fetch that does not wait, of at most maxBytes. */
  read(offset: number, maxBytes: number): Promise<RecordSetRead>;
  /** A Produce of these batches; the base offset (-1 for acks=0, which gets no answer). */
  append(records: Buffer, acks: Acks, timeoutMs: number): Promise<number>;
}

const CONSUMER_REPLICA_ID = -1;

/**
 * A partition this broker leads is read and written in-process through its ReplicaManager, by the paths the
 * Fetch, ListOffsets and Produce handlers take (leader check, high watermark, fetch.max.bytes, min.insync.replicas);
 * only a partition led by another broker is asked over the admin server's connection to that leader.
 */
export function partitionRecords(ctx: AdminContext, topic: string, partition: number): PartitionRecords {
  const { server } = ctx;
  const leader = server.metadataCache.partitions(topic).find((p) => p.partition === partition)?.leader ?? -1;
  if (leader === server.config.brokerId || server.replicaManager.getPartition(topic, partition)?.isLeader) return localRecords(server, topic, partition);
  if (leader < 0) throw new KafkaProtocolError(ErrorCode.LEADER_NOT_AVAILABLE, `${topic}-${partition} has no leader`);
  return remoteRecords(ctx, leader, topic, partition);
}

function failed(errorCode: number, what: string): KafkaProtocolError {
  return new KafkaProtocolError(errorCode, `${what} failed with ${errorName(errorCode)}`);
}

function localRecords(server: KafkaServer, topic: string, partition: number): PartitionRecords {
  const replicas = server.replicaManager;
  return {
    offsetFor: async (timestamp) => partitionOffset(server, topic, partition, timestamp, false).offset,
    read: async (offset, maxBytes) => {
      const [data] = await replicas.fetchMessages({
        replicaId: CONSUMER_REPLICA_ID,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes: Math.min(maxBytes, server.config.fetchMaxBytes),
        partitions: [{ topic, partition, fetchOffset: offset, partitionMaxBytes: maxBytes, currentLeaderEpoch: -1, logStartOffset: -1 }],
      });
      if (data!.errorCode !== ErrorCode.NONE) throw failed(data!.errorCode, `fetch ${topic}-${partition} at offset ${offset}`);
      return data!;
    },
    append: async (records, acks, timeoutMs) => {
      const refused = produceRefusal(topic, acks, null);
      if (refused !== null) throw failed(refused, `produce to ${topic}-${partition}`);
      const [status] = await replicas.appendRecords(timeoutMs, acks, [{ topic, partition, records }]);
      if (status!.errorCode !== ErrorCode.NONE) throw failed(status!.errorCode, `produce to ${topic}-${partition}`);
      return acks === 0 ? -1 : status!.baseOffset;
    },
  };
}

function remoteRecords(ctx: AdminContext, leader: number, topic: string, partition: number): PartitionRecords {
  const conn = () => brokerConnection(ctx, leader);
  return {
    offsetFor: async (timestamp) => {
      const res = await conn().send(ListOffsets, {
        replicaId: CONSUMER_REPLICA_ID,
        isolationLevel: 0,
        topics: [{ name: topic, partitions: [{ partitionIndex: partition, currentLeaderEpoch: -1, timestamp }] }],
      });
      const p = res.topics.find((t) => t.name === topic)?.partitions.find((x) => x.partitionIndex === partition);
      if (!p || p.errorCode !== ErrorCode.NONE) throw failed(p?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR, `ListOffsets for ${topic}-${partition}`);
      return p.offset;
    },
    read: async (offset, maxBytes) => {
      const res = await conn().send(Fetch, {
        replicaId: CONSUMER_REPLICA_ID,
        maxWaitMs: 0,
        minBytes: 0,
        maxBytes,
        isolationLevel: 0,
        topics: [{ topic, partitions: [{ partition, currentLeaderEpoch: -1, fetchOffset: offset, logStartOffset: -1, partitionMaxBytes: maxBytes }] }],
      });
      const what = `fetch ${topic}-${partition} at offset ${offset}`;
      if ((res.errorCode ?? ErrorCode.NONE) !== ErrorCode.NONE) throw failed(res.errorCode!, what);
      const p = res.responses.find((t) => t.topic === topic)?.partitionResponses.find((x) => x.partition === partition);
      if (!p || p.errorCode !== ErrorCode.NONE) throw failed(p?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR, what);
      return { highWatermark: p.highWatermark, logStartOffset: p.logStartOffset ?? -1, records: p.recordSet ?? Buffer.alloc(0) };
    },
    append: async (records, acks, timeoutMs) => {
      const request = { transactionalId: null, acks, timeoutMs, topicData: [{ name: topic, partitionData: [{ index: partition, records }] }] };
      if (acks === 0) {
        await conn().send(Produce, request, { expectResponse: false });
        return -1;
      }
      const res = await conn().send(Produce, request, { timeoutMs: timeoutMs + 5_000 });
      const p = res.responses.find((t) => t.name === topic)?.partitionResponses.find((x) => x.index === partition);
      if (!p || p.errorCode !== ErrorCode.NONE) throw failed(p?.errorCode ?? ErrorCode.UNKNOWN_SERVER_ERROR, `produce to ${topic}-${partition}`);
      return p.baseOffset;
    },
  };
}

/** Records at or after `offset` from the whole batches of a read, and where the next read starts. */
export interface DecodedRead {
  highWatermark: number;
  logStartOffset: number;
  records: DecodedRecord[];
  /** After the last whole batch (control batches included), or `offset` when none came. */
  nextOffset: number;
}

/**
 * Decodes a read as a consumer does: records before a batch that cannot be decoded (corrupt, or inflating past
 * the cap) are handed out, and the read fails with CORRUPT_MESSAGE once that batch comes first.
 */
export function decodeRead(read: RecordSetRead, topic: string, partition: number, offset: number, maxBytes: number): DecodedRead {
  const out: DecodedRead = { highWatermark: read.highWatermark, logStartOffset: read.logStartOffset, records: [], nextOffset: offset };
  if (read.records.length === 0) return out;
  const { batches, error } = decodeRecordSetPrefix(read.records, { maxDecompressedBytes: decompressionCap(maxBytes) });
  if (error && batches.length === 0) throw new CorruptDataError(`fetch ${topic}-${partition} at offset ${offset}: ${error.message}`, { cause: error });
  for (const batch of batches) {
    out.nextOffset = Math.max(out.nextOffset, batch.lastOffset + 1);
    if (batch.isControl) continue; // transaction markers are not application records
    // A batch may start before the offset asked for.
    for (const r of batch.records) if (r.offset >= offset) out.records.push(r);
  }
  return out;
}
