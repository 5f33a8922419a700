/**
 * Java .properties parsing, as Kafka reads server.properties: `key=value` or `key: value`,
 * `#`/`!` comments, backslash line continuations and escapes.
 */
export function parseProperties(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split(/\r?\n/);
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!.replace(/^\s+/, '');
    if (line === '' || line.startsWith('#') || line.startsWith('!')) continue;
    while (endsWithOddBackslashes(line) && i + 1 < lines.length) {
      line = line.slice(0, -1) + lines[++i]!.replace(/^\s+/, '');
    }
    const sep = findSeparator(line);
    const key = unescape(sep < 0 ? line : line.slice(0, sep)).trim();
    const value = sep < 0 ? '' : unescape(line.slice(sep + 1).replace(/^[\s=:]?\s*/, '')).trim();
    out.set(key, value);
  }
  return out;
}

function endsWithOddBackslashes(s: string): boolean {
  let n = 0;
  for (let i = s.length - 1; i >= 0 && s[i] === '\\'; i--) n++;
  return n % 2 === 1;
}

function findSeparator(line: string): number {
  for (let i = 0; i < line.length; i++) {
    const c = line[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '=' || c === ':' || c === ' ' || c === '\t') return i;
  }
  return -1;
}

function unescape(s: string): string {
  return s.replace(/\\(u[0-9a-fA-F]{4}|.)/g, (_, e: string) => {
    if (e.startsWith('u') && e.length === 5) return String.fromCharCode(parseInt(e.slice(1), 16));
    return ({ t: '\t', n: '\n', r: '\r', f: '\f' } as Record<string, string>)[e] ?? e;
  });
}
