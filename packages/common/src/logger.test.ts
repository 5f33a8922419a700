import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

const DIST = new URL('../dist/index.js', import.meta.url).href;

function logOnce(env: Record<string, string | undefined>): string {
  const code = `import(${JSON.stringify(DIST)}).then((m) => { const l = m.createLogger('t', { bindings: { brokerId: 3 } }); l.info({ k: 1 }, 'hello'); l.flush(); })`;
  const merged: NodeJS.ProcessEnv = { ...process.env, ...env };
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete merged[k];
  const r = spawnSync(process.execPath, ['-e', code], { env: merged, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
  return r.stderr;
}

describe('createLogger', () => {
  it('writes JSON lines to stderr when it is not a terminal', () => {
    const line = JSON.parse(logOnce({ LOG_FORMAT: undefined }).trim()) as Record<string, unknown>;
    expect(line).toMatchObject({ level: 30, name: 't', brokerId: 3, k: 1, msg: 'hello' });
  });

  it('LOG_FORMAT=pretty prints readable lines (what a terminal gets by default)', () => {
    const out = logOnce({ LOG_FORMAT: 'pretty' });
    expect(out).toMatch(/^\[\d\d:\d\d:\d\d\.\d{3}\] INFO \(t\): hello\n {4}brokerId: 3\n {4}k: 1\n$/);
  });

  it('refuses an unknown LOG_FORMAT', () => {
    const code = `import(${JSON.stringify(DIST)}).then((m) => m.createLogger('t'))`;
    const r = spawnSync(process.execPath, ['-e', code], { env: { ...process.env, LOG_FORMAT: 'xml' }, encoding: 'utf8' });
    expect(r.status).not.toBe(0);
    expect(r.stderr).toMatch(/LOG_FORMAT must be json or pretty/);
  });
});
