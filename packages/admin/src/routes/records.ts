import type { Acks } from '@gregor/client';
import { ErrorCode } from '@gregor/common';
import { CompressionType, encodeRecordBatch, type DecodedRecord, type RecordInput } from '@gregor/protocol';
import type { FastifyInstance } from 'fastify';
import type { AdminContext } from '../admin-context.js';
import { AdminError, fromKafkaError } from '../errors.js';
import { decodeRead, partitionRecords } from '../partition-records.js';
import { errors, int, numericParam } from '../ops-schemas.js';
import { checkTopicName, unknownTopic } from '../topic-view.js';

/** Debugging routes move a few records, never bulk data. */
export const MAX_RECORDS = 100;
const MAX_FETCH_BYTES = 256 * 1024;
const DEFAULT_MAX_SCAN = 10_000;
const MAX_ROUNDS = 1000;
/** Records go in batches of up to this many bytes, as a producer with the default batch.size sends them. */
const BATCH_BYTES = 16_384;
/** How long an acks=all produce waits for the ISR (a producer's request.timeout.ms). */
const PRODUCE_TIMEOUT_MS = 10_000;

const params = {
  type: 'object',
  required: ['name', 'partition'],
  additionalProperties: false,
  properties: { name: { type: 'string' }, partition: numericParam },
} as const;

export interface ProduceBody {
  records: { key?: string | null; value: string | null; headers?: Record<string, string> }[];
  acks?: Acks;
}

const produceSchema = {
  params,
  querystring: { type: 'object', additionalProperties: false, properties: {} },
  body: {
    type: 'object',
    required: ['records'],
    additionalProperties: false,
    properties: {
      records: {
        type: 'array',
        minItems: 1,
        maxItems: MAX_RECORDS,
        items: {
          type: 'object',
          required: ['value'],
          additionalProperties: false,
          properties: {
            key: { type: ['string', 'null'], maxLength: 10_000 },
            value: { type: ['string', 'null'], maxLength: 100_000 },
            headers: { type: 'object', maxProperties: 20, additionalProperties: { type: 'string', maxLength: 10_000 } },
          },
        },
      },
      acks: { type: 'integer', enum: [-1, 0, 1] },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['topic', 'partition', 'baseOffset', 'count'],
      properties: { topic: { type: 'string' }, partition: int, baseOffset: int, count: int },
    },
    ...errors,
  },
} as const;

const fetchSchema = {
  params,
  querystring: {
    type: 'object',
    additionalProperties: false,
    properties: {
      /** Default: the log start offset. */
      offset: numericParam,
      /** Instead of offset: start at the first record whose timestamp is at or after this time (ms), as ListOffsets finds it. */
      timestamp: { type: 'string', pattern: '^(0|[1-9][0-9]{0,15})$' },
      limit: { type: 'string', pattern: '^([1-9]|[1-9][0-9]|100)$' },
      /** Only records whose key (UTF-8) is this string (keyMatch=exact, the default) or contains it. */
      key: { type: 'string', maxLength: 10_000 },
      keyMatch: { type: 'string', enum: ['exact', 'contains'] },
      /** A key search looks at this many records at most (default 10000); nextOffset says where it stopped. */
      maxScan: { type: 'string', pattern: '^([1-9][0-9]{0,4}|100000)$' },
      /** utf8 (default): keys, values and header values as UTF-8 text; base64: their exact bytes. */
      encoding: { type: 'string', enum: ['utf8', 'base64'] },
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['topic', 'partition', 'highWatermark', 'logStartOffset', 'startOffset', 'records', 'nextOffset', 'scanned', 'encoding'],
      properties: {
        topic: { type: 'string' },
        partition: int,
        highWatermark: int,
        logStartOffset: int,
        /** Where the read started (from offset, timestamp, or the log start). */
        startOffset: int,
        /** Where to continue: after the last record returned, or after the last one a key search looked at. */
        nextOffset: int,
        /** Records looked at (more than returned when searching by key). */
        scanned: int,
        encoding: { type: 'string', enum: ['utf8', 'base64'] },
        records: {
          type: 'array',
          items: {
            type: 'object',
            required: ['offset', 'timestamp', 'key', 'value', 'headers'],
            properties: {
              offset: int,
              timestamp: int,
              key: { type: ['string', 'null'] },
              value: { type: ['string', 'null'] },
              headers: { type: 'object', additionalProperties: { type: ['string', 'null'] } },
            },
          },
        },
      },
    },
    ...errors,
  },
} as const;

/**
 * Produce and fetch a few records of one partition, for debugging (keys, values and headers as UTF-8
 * strings). A partition this broker leads is read and written through its own ReplicaManager; one led
 * by another broker is asked of that leader (partitionRecords).
 */
export function recordRoutes(app: FastifyInstance, ctx: AdminContext): void {
  const { server } = ctx;
  /** The partition, checked against this broker's metadata. */
  const target = (name: string, rawPartition: string) => {
    checkTopicName(name);
    const partition = Number(rawPartition);
    const parts = server.metadataCache.partitions(name);
    if (parts.length === 0) throw unknownTopic(name);
    if (!parts.some((p) => p.partition === partition)) {
      throw new AdminError('GREGOR_ERR_UNKNOWN_PARTITION', `Partition ${name}-${partition} does not exist.`, ErrorCode.UNKNOWN_TOPIC_OR_PARTITION);
    }
    return partition;
  };

  app.post<{ Params: { name: string; partition: string }; Body: ProduceBody }>('/v1/topics/:name/partitions/:partition/records', { schema: produceSchema }, async (request) => {
    const { name } = request.params;
    const partition = target(name, request.params.partition);
    const { records, acks } = request.body;
    const baseOffset = await partitionRecords(ctx, name, partition).append(recordBatches(records), acks ?? -1, PRODUCE_TIMEOUT_MS);
    return { topic: name, partition, baseOffset, count: records.length };
  });

  app.get<{ Params: { name: string; partition: string }; Querystring: FetchQuery }>('/v1/topics/:name/partitions/:partition/records', { schema: fetchSchema }, async (request) => {
    const { name } = request.params;
    const partition = target(name, request.params.partition);
    const q = request.query;
    if (q.offset !== undefined && q.timestamp !== undefined) throw fromKafkaError(ErrorCode.INVALID_REQUEST, 'Give offset or timestamp, not both.');
    const limit = Number(q.limit ?? '10');
    const maxScan = q.key === undefined ? limit : Number(q.maxScan ?? DEFAULT_MAX_SCAN);
    const encoding = q.encoding ?? 'utf8';
    const leader = partitionRecords(ctx, name, partition);
    let start: number;
    if (q.offset !== undefined) start = Number(q.offset);
    else if (q.timestamp !== undefined) {
      const found = await leader.offsetFor(Number(q.timestamp));
      // No record that new: start at the end, where the next one produced will be.
      start = found >= 0 ? found : await leader.offsetFor(-1);
    } else start = await leader.offsetFor(-2);

    const wanted = q.key === undefined ? null : Buffer.from(q.key, 'utf8');
    const matches = (key: Buffer | null) => wanted === null || (key !== null && (q.keyMatch === 'contains' ? key.includes(wanted) : key.equals(wanted)));
    const found: DecodedRecord[] = [];
    let position = start;
    let scanned = 0;
    let highWatermark = -1;
    let logStartOffset = -1;
    // Bounded: every round moves the position forward or ends the read, and there are at most MAX_ROUNDS.
    for (let round = 0; round < MAX_ROUNDS && found.length < limit && scanned < maxScan; round++) {
      const result = decodeRead(await leader.read(position, MAX_FETCH_BYTES), name, partition, position, MAX_FETCH_BYTES);
      highWatermark = result.highWatermark;
      logStartOffset = result.logStartOffset;
      for (const r of result.records) {
        if (found.length >= limit || scanned >= maxScan) break;
        scanned++;
        position = r.offset + 1;
        if (matches(r.key)) found.push(r);
      }
      if (found.length >= limit || scanned >= maxScan) break;
      // Every record of the round was looked at: go on after it (and after control batches).
      const next = Math.max(position, result.nextOffset);
      if (next === position && result.records.length === 0) break;
      position = next;
      if (position >= highWatermark) break;
    }
    const text = (b: Buffer | null) => (b === null ? null : encoding === 'base64' ? b.toString('base64') : b.toString('utf8'));
    return {
      topic: name,
      partition,
      highWatermark,
      logStartOffset,
      startOffset: start,
      nextOffset: position,
      scanned,
      encoding,
      records: found.map((r) => ({
        offset: r.offset,
        timestamp: r.timestamp,
        key: text(r.key),
        value: text(r.value),
        headers: Object.fromEntries(r.headers.map((h) => [h.key, text(h.value)])),
      })),
    };
  });
}

interface FetchQuery {
  offset?: string;
  timestamp?: string;
  limit?: string;
  key?: string;
  keyMatch?: 'exact' | 'contains';
  maxScan?: string;
  encoding?: 'utf8' | 'base64';
}

/** The body's records as RecordBatch v2 batches of about BATCH_BYTES each, stamped with this broker's clock (CreateTime). */
function recordBatches(body: ProduceBody['records']): Buffer {
  const now = Date.now();
  const text = (s: string | null | undefined) => (s === null || s === undefined ? null : Buffer.from(s, 'utf8'));
  const batches: Buffer[] = [];
  let pending: RecordInput[] = [];
  let bytes = 0;
  const flush = () => {
    if (pending.length > 0) batches.push(encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: now, records: pending }));
    pending = [];
    bytes = 0;
  };
  for (const r of body) {
    const record: RecordInput = {
      key: text(r.key),
      value: text(r.value),
      headers: Object.entries(r.headers ?? {}).map(([key, value]) => ({ key, value: text(value) })),
      timestamp: now,
    };
    const size = (record.key?.length ?? 0) + (record.value?.length ?? 0) + record.headers.reduce((n, h) => n + h.key.length + (h.value?.length ?? 0), 0);
    if (bytes > 0 && bytes + size > BATCH_BYTES) flush();
    pending.push(record);
    bytes += size;
  }
  flush();
  return Buffer.concat(batches);
}
