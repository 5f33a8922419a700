import { describe, expect, it } from 'vitest';
import { decodeRecordBatch } from '../../record-batch/decode-record-batch.js';
import { loadFixture } from '../../test-fixtures/load-fixture.js';
import { decodeBody, encodeBody, roundTrip } from '../../test-fixtures/round-trip.js';
import { Produce } from './index.js';
import type { ProduceRequest, ProduceResponse } from './types.js';

const request = (): ProduceRequest => ({
  transactionalId: null,
  acks: -1,
  timeoutMs: 30000,
  topicData: [
    { name: 'orders', partitionData: [{ index: 0, records: Buffer.from('not really a batch') }, { index: 1, records: null }] },
    { name: 'big', partitionData: [{ index: 2, records: Buffer.alloc(10_000, 1) }] },
  ],
});

const response = (v: number): ProduceResponse => ({
  responses: [
    {
      name: 'orders',
      partitionResponses: [
        { index: 0, errorCode: 0, baseOffset: 2 ** 40, logAppendTimeMs: -1, logStartOffset: v >= 5 ? 17 : -1, recordErrors: [], errorMessage: null },
        {
          index: 1,
          errorCode: 6,
          baseOffset: -1,
          logAppendTimeMs: 1_700_000_000_000,
          logStartOffset: -1,
          recordErrors: v >= 8 ? [{ batchIndex: 3, batchIndexErrorMessage: 'bad' }, { batchIndex: 4, batchIndexErrorMessage: null }] : [],
          errorMessage: v >= 8 ? 'One or more records have been rejected' : null,
        },
      ],
    },
  ],
  throttleTimeMs: 0,
});

describe('Produce', () => {
  it.each([...Produce.versions.keys()])('v%i round-trips requests and responses', (v) => {
    const codec = Produce.versions.get(v)!;
    for (const [kind, value] of [['Request', request()], ['Response', response(v)]] as const) {
      const rt = roundTrip(codec, kind, value as never);
      expect(rt.decoded).toEqual(value);
      expect(rt.again).toEqual(rt.bytes);
      expect(rt.leftover).toBe(0);
    }
  });

  it('decodes record sets as views into the request bytes', () => {
    const rt = roundTrip(Produce.versions.get(7)!, 'Request', request());
    const records = rt.decoded.topicData[1]!.partitionData[0]!.records!;
    expect(records.buffer).toBe(rt.bytes.buffer);
  });

  it.each([3, 7])('decodes and re-encodes the captured kafkajs v%i request byte for byte', (v) => {
    const body = loadFixture(`produce-v${v}_request`);
    const codec = Produce.versions.get(v)!;
    const { value, leftover } = decodeBody(codec, 'Request', body);
    const req = value as ProduceRequest;
    expect(leftover).toBe(0);
    expect(req).toMatchObject({ transactionalId: null, acks: -1, timeoutMs: 30000 });
    for (const t of req.topicData) for (const p of t.partitionData) expect(decodeRecordBatch(p.records!).magic).toBe(2);
    expect(encodeBody(codec, 'Request', req)).toEqual(body);
  });

  it.each([3, 5, 7])('decodes and re-encodes the captured kafkajs v%i response byte for byte', (v) => {
    const body = loadFixture(`produce-v${v}_response`);
    const codec = Produce.versions.get(v)!;
    const { value, leftover } = decodeBody(codec, 'Response', body);
    expect(leftover).toBe(0);
    expect((value as ProduceResponse).responses[0]!.partitionResponses[0]!.errorCode).toBe(0);
    expect(encodeBody(codec, 'Response', value)).toEqual(body);
  });

  it('v8 adds record_errors and error_message to each partition response (KIP-467, ProduceResponse.json)', () => {
    const v8 = Produce.versions.get(8)!;
    const res: ProduceResponse = {
      responses: [
        {
          name: 't',
          partitionResponses: [
            { index: 0, errorCode: 87, baseOffset: -1, logAppendTimeMs: -1, logStartOffset: -1, recordErrors: [{ batchIndex: 2, batchIndexErrorMessage: 'x' }], errorMessage: null },
          ],
        },
      ],
      throttleTimeMs: 0,
    };
    const bytes = encodeBody(v8, 'Response', res);
    expect(bytes.toString('hex')).toBe(
      '00000001' + '000174' + '00000001' + // responses [1]: "t"; partition_responses [1]
        '00000000' + '0057' + 'ffffffffffffffff' + 'ffffffffffffffff' + 'ffffffffffffffff' + // index 0, INVALID_RECORD(87), base_offset, log_append_time_ms, log_start_offset
        '00000001' + '00000002' + '000178' + // record_errors [1]: batch_index 2, batch_index_error_message "x"
        'ffff' + // error_message null
        '00000000', // throttle_time_ms
    );
    expect(decodeBody(v8, 'Response', bytes).value).toEqual(res);
    // The request is unchanged from v3.
    expect(encodeBody(v8, 'Request', request())).toEqual(encodeBody(Produce.versions.get(3)!, 'Request', request()));
  });
});
