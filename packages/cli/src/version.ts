import { readFileSync } from 'node:fs';

/** The version in packages/cli/package.json (one level above both src/ and dist/). */
export function cliVersion(): string {
  try {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
    return pkg.version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}
