#!/usr/bin/env node
// Leader record validation (issue 12): nanoseconds per record of validateProducerBatch (the record walk Kafka's
// LogValidator does) next to splitBatches (the CRC-32C check every append already paid), on one 10,000-record
// uncompressed batch of 100-byte values, 5 rounds of 200 batches; and of the walk alone.
//
//   npm run build && node bench/record-validation.mjs [--json <file>]
import { encodeRecordBatch, CompressionType, walkRecords, splitBatches } from '@gregor/protocol';
import { validateProducerBatch } from '../packages/storage/dist/log-validator.js';
import { median, startBench } from './lib/bench.mjs';

const bench = await startBench('record-validation', { params: { records: 10_000, valueBytes: 100, batchesPerRound: 200, rounds: 5 } });
const ns = { validate: [], splitBatches: [], walk: [] };
const now = Date.now();
const recs = Array.from({ length: 10000 }, (_, i) => ({ key: null, value: Buffer.alloc(100, i), headers: [], timestamp: now }));
const b = encodeRecordBatch({ baseOffset: 0, compression: CompressionType.none, firstTimestamp: now, records: recs });
const [h] = splitBatches(b);
const cfg = { timestampType: 'CreateTime', timestampDifferenceMaxMs: Number.MAX_SAFE_INTEGER, compacted: false, maxDecompressedBytes: 50 << 20 };
for (let r = 0; r < 5; r++) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 200; i++) validateProducerBatch(b, h, 0, now, cfg);
  const t1 = process.hrtime.bigint();
  const t2 = process.hrtime.bigint();
  for (let i = 0; i < 200; i++) splitBatches(b);
  const t3 = process.hrtime.bigint();
  ns.validate.push(Number(t1 - t0) / 2e6);
  ns.splitBatches.push(Number(t3 - t2) / 2e6);
  console.log(`validate ${(Number(t1 - t0) / 2e6).toFixed(1)} ns/record; splitBatches(CRC) ${(Number(t3 - t2) / 2e6).toFixed(1)} ns/record`);
}
for (let r = 0; r < 5; r++) {
  const t0 = process.hrtime.bigint();
  for (let i = 0; i < 200; i++) walkRecords(b, h.position + 61, h.position + h.sizeInBytes, h.recordCount, () => {});
  const t1 = process.hrtime.bigint();
  ns.walk.push(Number(t1 - t0) / 2e6);
  console.log(`walk only ${(Number(t1 - t0) / 2e6).toFixed(1)} ns/record`);
}
await bench.finish({ nsPerRecord: ns }, {
  charts: [{ id: 'record-validation', title: 'Leader record validation, ns per record (10,000-record batch)', unit: 'ns', bars: [
    { label: 'validateProducerBatch', value: median(ns.validate), runs: ns.validate },
    { label: 'walk alone', value: median(ns.walk), runs: ns.walk },
    { label: 'splitBatches (CRC-32C)', value: median(ns.splitBatches), runs: ns.splitBatches },
  ] }],
});
