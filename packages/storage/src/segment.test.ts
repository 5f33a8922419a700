import { afterEach, describe, expect, it } from 'vitest';
import { readBatchHeader, type BatchHeader } from '@gregor/protocol';
import { LogSegment } from './segment.js';
import { nodeIo, type SegmentIo } from './segment-io.js';
import { makeBatch, tempDir } from './test-batches.js';

/** node:fs, counting reads and failing the next write when asked. */
function countingIo() {
  const io = { ...nodeIo, reads: 0, failNextWrite: false } as SegmentIo & { reads: number; failNextWrite: boolean };
  io.readSync = (fd, buffer, offset, length, position) => {
    io.reads++;
    return nodeIo.readSync(fd, buffer, offset, length, position);
  };
  io.writeSync = (fd, buffer, offset, length, position) => {
    if (io.failNextWrite) {
      io.failNextWrite = false;
      // Half the bytes land, then the disk is full: the append must be cut back.
      nodeIo.writeSync(fd, buffer, offset, Math.floor(length / 2), position);
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
    }
    return nodeIo.writeSync(fd, buffer, offset, length, position);
  };
  return io;
}

/** A batch of `count` records from `baseOffset`, with its header as append() takes it (position 0 in itself). */
function batchAt(baseOffset: number, count: number): { bytes: Buffer; header: BatchHeader } {
  const bytes = makeBatch({ baseOffset, records: Array.from({ length: count }, (_, i) => ({ value: Buffer.from(`v${baseOffset + i}`) })) });
  return { bytes, header: readBatchHeader(bytes, 0) };
}

/** What translateOffset must answer, from a scan of the file's headers. */
function scanned(segment: LogSegment, offset: number): { position: number; baseOffset: number; lastOffset: number } | null {
  for (const h of segment.headersFrom(0)) if (h.lastOffset >= offset) return { position: h.position, baseOffset: h.baseOffset, lastOffset: h.lastOffset };
  return null;
}

function found(h: BatchHeader | null) {
  return h && { position: h.position, baseOffset: h.baseOffset, lastOffset: h.lastOffset };
}

describe('LogSegment.translateOffset', () => {
  const cleanups: Array<() => void> = [];
  afterEach(() => cleanups.splice(0).forEach((c) => c()));
  function segment() {
    const dir = tempDir();
    const io = countingIo();
    const seg = new LogSegment(dir.path, 0, { indexIntervalBytes: 4096, maxIndexBytes: 1024 * 1024, io }, true, Date.now());
    cleanups.push(() => {
      seg.close();
      dir.cleanup();
    });
    return { seg, io };
  }
  /** Appends batches of 3 records each (offsets next..next+2), one append call per `perAppend` batches. */
  function appendBatches(seg: LogSegment, batches: number, perAppend = 1) {
    for (let i = 0; i < batches; i += perAppend) {
      const parts = Array.from({ length: Math.min(perAppend, batches - i) }, (_, j) => batchAt(seg.nextOffset + 3 * j, 3));
      let position = 0;
      const headers = parts.map((p) => {
        const h = { ...p.header, position };
        position += p.bytes.length;
        return h;
      });
      seg.append(Buffer.concat(parts.map((p) => p.bytes)), headers);
    }
  }

  it('answers the last appended batches without reading the file, and the same as a scan for every offset', () => {
    const { seg, io } = segment();
    appendBatches(seg, 40, 3);
    expect(seg.nextOffset).toBe(120);
    for (let offset = 96; offset <= 120; offset++) {
      const before = io.reads;
      const h = seg.translateOffset(offset);
      expect(io.reads).toBe(before); // the last 8 batches hold offsets 96..119; 120 is the end
      expect(found(h)).toEqual(scanned(seg, offset));
    }
    for (let offset = 0; offset < 96; offset++) expect(found(seg.translateOffset(offset))).toEqual(scanned(seg, offset));
    // A caller changing what it got does not change what the segment keeps.
    seg.translateOffset(100)!.position = -1;
    expect(seg.translateOffset(100)!.position).toBe(scanned(seg, 100)!.position);
  });

  it('stays right after a truncation, a failed append and a roll', () => {
    const { seg, io } = segment();
    appendBatches(seg, 10);
    seg.truncateTo(22); // drops the batch holding 21..23 and after
    expect(seg.nextOffset).toBe(21);
    for (let offset = 0; offset <= 30; offset++) expect(found(seg.translateOffset(offset))).toEqual(scanned(seg, offset));
    appendBatches(seg, 2);
    io.failNextWrite = true;
    expect(() => appendBatches(seg, 1)).toThrow(/ENOSPC/);
    expect(seg.nextOffset).toBe(27);
    for (let offset = 0; offset <= 30; offset++) expect(found(seg.translateOffset(offset))).toEqual(scanned(seg, offset));
    appendBatches(seg, 2);
    seg.onBecomeInactive();
    const before = io.reads;
    expect(found(seg.translateOffset(30))).toEqual(scanned(seg, 30));
    expect(io.reads).toBeGreaterThan(before); // a rolled segment forgets them: found from the index again
    for (let offset = 0; offset <= 33; offset++) expect(found(seg.translateOffset(offset))).toEqual(scanned(seg, offset));
  });
});
