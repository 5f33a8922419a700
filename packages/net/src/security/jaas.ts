import { ConfigError } from '@gregor/common';

/** One login module entry of a JAAS configuration (`sasl.jaas.config`). */
export interface JaasEntry {
  loginModule: string;
  controlFlag: string;
  options: Map<string, string>;
}

/**
 * Parses a JAAS configuration value as Kafka's JaasConfig does:
 * `<LoginModule> <required|requisite|sufficient|optional> key="value" key=value ...;` (one or more
 * entries, each ending with ';'). Quoted values may contain spaces and escaped quotes.
 */
export function parseJaasConfig(text: string, where = 'sasl.jaas.config'): JaasEntry[] {
  const entries: JaasEntry[] = [];
  let i = 0;
  const s = text;
  const fail = (problem: string): never => {
    throw new ConfigError(`Invalid ${where}: ${problem}`);
  };
  const skipSpace = () => {
    while (i < s.length && /\s/.test(s[i]!)) i++;
  };
  const word = (): string => {
    skipSpace();
    const start = i;
    while (i < s.length && /[A-Za-z0-9_.$-]/.test(s[i]!)) i++;
    return s.slice(start, i);
  };
  for (;;) {
    skipSpace();
    if (i >= s.length) break;
    const loginModule = word();
    if (loginModule === '') fail(`expected a login module class at position ${i}`);
    const controlFlag = word().toLowerCase();
    if (!['required', 'requisite', 'sufficient', 'optional'].includes(controlFlag)) fail(`login module control flag not specified for ${loginModule}`);
    const options = new Map<string, string>();
    for (;;) {
      skipSpace();
      if (i >= s.length) fail('an entry must end with ";"');
      if (s[i] === ';') {
        i++;
        break;
      }
      const key = word();
      if (key === '') fail(`unexpected "${s[i]}" at position ${i}`);
      skipSpace();
      if (s[i] !== '=') fail(`expected "=" after ${key}`);
      i++;
      skipSpace();
      let value = '';
      if (s[i] === '"') {
        i++;
        while (i < s.length && s[i] !== '"') {
          if (s[i] === '\\' && i + 1 < s.length) i++;
          value += s[i++];
        }
        if (s[i] !== '"') fail(`unterminated quoted value of ${key}`);
        i++;
      } else {
        const start = i;
        while (i < s.length && !/[\s;]/.test(s[i]!)) i++;
        value = s.slice(start, i);
      }
      options.set(key, value);
    }
    entries.push({ loginModule, controlFlag, options });
  }
  if (entries.length === 0) fail('no login module');
  return entries;
}

/** The `username`/`password` options of the first entry (a client's or an inter-broker login). */
export function jaasCredentials(entries: readonly JaasEntry[]): { username: string; password: string } | null {
  const first = entries[0];
  const username = first?.options.get('username');
  const password = first?.options.get('password');
  return username !== undefined && password !== undefined ? { username, password } : null;
}

/** PlainLoginModule's `user_<name>="<password>"` options: the users a broker accepts with SASL/PLAIN. */
export function jaasPlainUsers(entries: readonly JaasEntry[]): Map<string, string> {
  const users = new Map<string, string>();
  for (const e of entries) for (const [k, v] of e.options) if (k.startsWith('user_') && k.length > 5) users.set(k.slice(5), v);
  return users;
}
