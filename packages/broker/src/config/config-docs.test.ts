import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { renderConfigurationDoc } from './config-docs.js';

it('docs/configuration.md is in step with the setting tables (regenerate: node scripts/gen-config-docs.mjs)', () => {
  const doc = readFileSync(join(import.meta.dirname, '../../../../docs/configuration.md'), 'utf8');
  expect(doc).toBe(renderConfigurationDoc());
});
