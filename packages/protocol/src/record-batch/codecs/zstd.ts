import { corrupt, inflatesTooFar } from './limits.js';
import { lazyNative } from './native.js';

type Zstd = typeof import('zstd-napi/binding.js');
const native = lazyNative<Zstd>('zstd', 'zstd-napi/binding');

/** Kafka's default zstd level (compression.zstd.level, KIP-390). */
const LEVEL = 3;
/** zstd's own default limit on the window a frame may ask for (ZSTD_WINDOWLOG_LIMIT_DEFAULT, 128 MiB). */
const WINDOW_LOG_LIMIT = 27;
/** Streaming writers declare no content size and take the window of their level: up to 2^23 for levels 1-19. */
const MIN_WINDOW_LOG = 23;
const FIRST_CHUNK = 256 * 1024;

interface Contexts {
  zstd: Zstd;
  cctx: InstanceType<Zstd['CCtx']>;
  dctx: InstanceType<Zstd['DCtx']>;
}
let contexts: Contexts | undefined;

/** One compression and one decompression context, reused: every call runs to completion synchronously. */
function ctx(): Contexts {
  if (!contexts) {
    const zstd = native();
    contexts = { zstd, cctx: new zstd.CCtx(), dctx: new zstd.DCtx() };
  }
  return contexts;
}

export function zstdCompress(data: Buffer): Buffer {
  const { zstd, cctx } = ctx();
  const out = Buffer.allocUnsafe(zstd.compressBound(data.length));
  return out.subarray(0, cctx.compress(out, data, LEVEL));
}

/**
 * Streams the frames through ZSTD_decompressStream into chunks, stopping as soon as the output passes
 * maxBytes. A declared frame content size above the cap is refused up front, and the window a frame may
 * demand is bounded by the cap too (at most twice the cap, at least 8 MiB: a tiny frame cannot make the
 * decoder reserve 128 MiB under a 1 MiB cap).
 */
export function zstdDecompress(data: Buffer, maxBytes: number): Buffer {
  const { zstd, dctx } = ctx();
  let declared: number | null;
  try {
    declared = zstd.getFrameContentSize(data);
  } catch (err) {
    throw corrupt('zstd', `invalid frame header: ${(err as Error).message}`, err);
  }
  if (declared !== null && declared > maxBytes) throw inflatesTooFar('zstd', maxBytes, `frame declares ${declared} bytes`);
  dctx.reset(zstd.ResetDirective.sessionAndParameters);
  const windowLog = Math.min(WINDOW_LOG_LIMIT, Math.max(MIN_WINDOW_LOG, Math.ceil(Math.log2(Math.max(2, maxBytes))) + 1));
  dctx.setParameter(zstd.DParameter.windowLogMax, windowLog);
  const out: Buffer[] = [];
  let total = 0;
  let input = data;
  let chunkSize = declared !== null ? declared + 1 : Math.max(FIRST_CHUNK, data.length * 4);
  for (;;) {
    // One byte past the cap is enough to know the cap is passed.
    const chunk = Buffer.allocUnsafe(Math.max(1, Math.min(chunkSize, maxBytes - total + 1)));
    let hint: number;
    let produced: number;
    let consumed: number;
    try {
      [hint, produced, consumed] = dctx.decompressStream(chunk, input);
    } catch (err) {
      throw corrupt('zstd', (err as Error).message, err);
    }
    input = input.subarray(consumed);
    total += produced;
    if (total > maxBytes) throw inflatesTooFar('zstd', maxBytes);
    if (produced > 0) out.push(chunk.subarray(0, produced));
    if (hint === 0 && input.length === 0) break; // last frame complete and flushed
    if (produced === 0 && consumed === 0) throw corrupt('zstd', 'frame truncated');
    chunkSize *= 2;
  }
  return out.length === 1 ? out[0]! : Buffer.concat(out, total);
}
