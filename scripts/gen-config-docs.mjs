// Writes docs/configuration.md from the broker's setting tables (build first: npx tsc -b).
import { writeFileSync } from 'node:fs';
import { renderConfigurationDoc } from '@gregor/broker';
writeFileSync(new URL('../docs/configuration.md', import.meta.url), renderConfigurationDoc());
console.log('wrote docs/configuration.md');
