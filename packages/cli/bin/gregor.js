#!/usr/bin/env node
// The `gregor` command as npm links it. The CLI is TypeScript compiled into dist/; npm links bins
// when it installs, before any build exists, so the link points at this committed file, which builds
// the checkout once if dist/ is missing and then runs the compiled CLI.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const main = new URL('../dist/main.js', import.meta.url);
if (!existsSync(fileURLToPath(main))) {
  const root = fileURLToPath(new URL('../../../', import.meta.url));
  let tsc;
  try {
    tsc = createRequire(new URL('../../../package.json', import.meta.url)).resolve('typescript/bin/tsc');
  } catch {
    process.stderr.write('gregor is not built and TypeScript is not installed: run `npm ci` and `npm run build` in the checkout.\n');
    process.exit(1);
  }
  process.stderr.write('gregor: first run, building the checkout (tsc -b)...\n');
  const built = spawnSync(process.execPath, [tsc, '-b'], { cwd: root, stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
}
await import(main.href);
