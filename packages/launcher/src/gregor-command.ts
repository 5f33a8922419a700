import { fileURLToPath } from 'node:url';

/**
 * [node, <checkout>/packages/cli/dist/main.js]: the compiled CLI of this checkout, which runs
 * brokers as `… broker --config <file>`. The path is the same from src/ and dist/ of this package.
 */
export function repoGregorCommand(): string[] {
  return [process.execPath, fileURLToPath(new URL('../../cli/dist/main.js', import.meta.url))];
}
