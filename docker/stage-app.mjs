// Stages the built gregor app for the broker image, without the network: every workspace package's
// package.json and dist (no tests, no type declarations), the production dependencies copied from the
// repo's node_modules as package-lock.json lists them (dev-only ones left out), and the healthcheck.
// Usage: node docker/stage-app.mjs <out-dir>   (run `npx tsc -b` first)
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = process.argv[2];
if (!out) throw new Error('usage: node docker/stage-app.mjs <out-dir>');
rmSync(out, { recursive: true, force: true });
mkdirSync(out, { recursive: true });

const rootPkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
delete rootPkg.devDependencies;
delete rootPkg.scripts;
writeFileSync(join(out, 'package.json'), `${JSON.stringify(rootPkg, null, 2)}\n`);

const skip = (src) => /\.test\.(js|js\.map|d\.ts)$|\.d\.ts(\.map)?$|tsbuildinfo$/.test(src);
for (const name of readdirSync(join(repo, 'packages'))) {
  const pkgDir = join(repo, 'packages', name);
  if (!existsSync(join(pkgDir, 'package.json'))) continue;
  if (!existsSync(join(pkgDir, 'dist'))) {
    // A package the cli does not import yet (work in progress) may lack a build; the cli itself may not.
    if (name === 'cli') throw new Error('packages/cli has no dist: run npx tsc -b first');
    console.warn(`skipping packages/${name}: no dist`);
    continue;
  }
  mkdirSync(join(out, 'packages', name), { recursive: true });
  cpSync(join(pkgDir, 'package.json'), join(out, 'packages', name, 'package.json'));
  cpSync(join(pkgDir, 'dist'), join(out, 'packages', name, 'dist'), { recursive: true, filter: (src) => !skip(src) });
}

// package-lock v3: "node_modules/<path>" entries; dev-only ones carry dev: true; workspace links link: true.
const lock = JSON.parse(readFileSync(join(repo, 'package-lock.json'), 'utf8'));
let copied = 0;
for (const [path, entry] of Object.entries(lock.packages)) {
  if (!path.startsWith('node_modules/') || entry.dev || entry.devOptional) continue;
  const src = join(repo, path);
  const dst = join(out, path);
  if (entry.link) {
    if (!existsSync(join(out, entry.resolved))) continue; // a workspace package without a dist
    mkdirSync(dirname(dst), { recursive: true });
    symlinkSync(relative(dirname(dst), join(out, entry.resolved)), dst);
    continue;
  }
  if (!existsSync(src)) continue; // an optional dependency for another platform
  // Nested node_modules are their own lock entries: copy only this package's files.
  cpSync(src, dst, { recursive: true, filter: (s) => s === src || !relative(src, s).split('/').includes('node_modules') });
  copied++;
}
mkdirSync(join(out, 'docker'), { recursive: true });
cpSync(join(repo, 'docker', 'broker', 'healthcheck.mjs'), join(out, 'docker', 'healthcheck.mjs'));
console.log(`staged ${copied} npm packages and ${readdirSync(join(out, 'packages')).length} workspace packages in ${out}`);
