import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * How brokers of a local cluster are run: this node binary on the compiled CLI. From dist/ that is
 * the main.js beside this file; from sources (tests) it is the build in ../dist.
 */
export function gregorCommand(): string[] {
  const beside = fileURLToPath(new URL('./main.js', import.meta.url));
  const built = fileURLToPath(new URL('../dist/main.js', import.meta.url));
  const main = existsSync(beside) ? beside : built;
  if (!existsSync(main)) throw new Error(`the compiled CLI (${main}) is missing: run \`npx tsc -b\` first`);
  return [process.execPath, main];
}
