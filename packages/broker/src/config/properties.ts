import { parse } from 'dot-properties';

/**
 * Java .properties parsing, as Kafka reads server.properties (java.util.Properties.load):
 * `key=value`, `key: value` or `key value`, whitespace around the separator skipped but trailing
 * whitespace of the value kept, `#`/`!` comment lines, backslash continuations (the next line's
 * leading whitespace dropped) and escapes (`\t`, `\uXXXX`, `\=`, ...). The dot-properties package
 * follows those rules; later duplicates win, as with Java.
 */
export function parseProperties(text: string): Map<string, string> {
  const parsed = parse(text);
  const out = new Map<string, string>();
  for (const [k, v] of Object.entries(parsed)) out.set(k, typeof v === 'string' ? v : '');
  return out;
}
