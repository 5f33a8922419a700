/** Formatting for the console's tables and charts (pure functions, unit-tested in node). */

const BYTE_UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];

export function formatBytes(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  let v = n;
  let u = 0;
  while (Math.abs(v) >= 1024 && u < BYTE_UNITS.length - 1) {
    v /= 1024;
    u++;
  }
  return u === 0 ? `${Math.round(v)} B` : `${v.toFixed(v < 10 ? 2 : v < 100 ? 1 : 0)} ${BYTE_UNITS[u]}`;
}

export function formatNumber(n: number | null | undefined): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return Number.isInteger(n) ? n.toLocaleString('en-US') : n.toLocaleString('en-US', { maximumFractionDigits: 1 });
}

/** A rate per second, compact: 0, 3.2, 1.4k, 2.1M. */
export function formatRate(n: number | null | undefined, unit = '/s'): string {
  if (n === null || n === undefined || !Number.isFinite(n)) return '–';
  return `${compact(n)}${unit}`;
}

export function compact(n: number): string {
  const a = Math.abs(n);
  if (a >= 1e9) return `${(n / 1e9).toFixed(1)}G`;
  if (a >= 1e6) return `${(n / 1e6).toFixed(1)}M`;
  if (a >= 1e3) return `${(n / 1e3).toFixed(1)}k`;
  if (a >= 10 || Number.isInteger(n)) return String(Math.round(n));
  return n.toFixed(1);
}

/** Local time with milliseconds, ISO-like: 2024-05-01 12:30:05.123. */
export function formatTimestamp(ms: number): string {
  if (ms < 0) return '–';
  const d = new Date(ms);
  const p = (x: number, w = 2) => String(x).padStart(w, '0');
  return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}:${p(d.getSeconds())}.${p(d.getMilliseconds(), 3)}`;
}

/** base64 (as the records route sends with encoding=base64) to bytes. */
export function fromBase64(b64: string): Uint8Array {
  const bin = atob(b64);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
}

export function toBase64(bytes: Uint8Array): string {
  let bin = '';
  for (const b of bytes) bin += String.fromCharCode(b);
  return btoa(bin);
}

export function utf8(bytes: Uint8Array): string {
  return new TextDecoder('utf-8', { fatal: false }).decode(bytes);
}

/** Whether the bytes are valid UTF-8 without control characters other than tab and newlines. */
export function isPrintable(bytes: Uint8Array): boolean {
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return false;
  }
  return !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/.test(text);
}

/** `xxd`-style: offset, 16 bytes in hex, and their printable ASCII. */
export function hexDump(bytes: Uint8Array, maxBytes = 4096): string {
  const lines: string[] = [];
  const n = Math.min(bytes.length, maxBytes);
  for (let at = 0; at < n; at += 16) {
    const row = bytes.subarray(at, Math.min(at + 16, n));
    const hex = [...row].map((b) => b.toString(16).padStart(2, '0'));
    const groups = [hex.slice(0, 8).join(' '), hex.slice(8).join(' ')].join('  ');
    const ascii = [...row].map((b) => (b >= 0x20 && b < 0x7f ? String.fromCharCode(b) : '.')).join('');
    lines.push(`${at.toString(16).padStart(8, '0')}  ${groups.padEnd(48)}  ${ascii}`);
  }
  if (bytes.length > n) lines.push(`… ${bytes.length - n} more bytes`);
  return lines.join('\n');
}

/** The text pretty-printed as JSON, or null when it is not JSON. */
export function prettyJson(text: string): string | null {
  const t = text.trim();
  if (!t || !'{["-0123456789tfn'.includes(t[0]!)) return null;
  try {
    return JSON.stringify(JSON.parse(t), null, 2);
  } catch {
    return null;
  }
}

export type ValueFormat = 'text' | 'json' | 'hex';

/** How a record value (or key) is shown in the chosen format; null bytes stay "null". */
export function renderValue(bytes: Uint8Array | null, format: ValueFormat): string {
  if (bytes === null) return 'null';
  if (format === 'hex') return hexDump(bytes);
  const text = utf8(bytes);
  if (format === 'json') return prettyJson(text) ?? text;
  return text;
}

/** "3 s ago", "4 min ago". */
export function ago(ms: number | null): string {
  if (ms === null) return '–';
  if (ms < 1000) return `${ms} ms`;
  if (ms < 60_000) return `${Math.round(ms / 1000)} s`;
  if (ms < 3_600_000) return `${Math.round(ms / 60_000)} min`;
  return `${(ms / 3_600_000).toFixed(1)} h`;
}

/** key=value per line (blank lines and # comments skipped), as in a .properties file. */
export function parseConfigLines(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const eq = line.indexOf('=');
    if (eq <= 0) throw new Error(`Not key=value: ${line}`);
    out[line.slice(0, eq).trim()] = line.slice(eq + 1).trim();
  }
  return out;
}

/** "1, 2, 3" or "1 2 3" to broker ids; throws on anything else. */
export function parseBrokerList(text: string): number[] {
  const parts = text.split(/[\s,]+/).filter((x) => x.length > 0);
  if (parts.length === 0) throw new Error('No broker ids given.');
  return parts.map((p) => {
    if (!/^\d+$/.test(p)) throw new Error(`Not a broker id: ${p}`);
    return Number(p);
  });
}
