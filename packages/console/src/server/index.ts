import { fileURLToPath } from 'node:url';

/**
 * The web console: browser modules compiled by tsc into dist/browser (served as static files), and the
 * page and stylesheet that load them. The admin server mounts it at /ui; the console reads and writes
 * only through the admin API (/v1/...), with the token the user gives it.
 */

/** dist/browser of this package, from src/server (tests) and dist/server (builds) alike. */
export const CONSOLE_ASSETS_DIR = fileURLToPath(new URL('../../dist/browser/', import.meta.url));

/** The browser entry module, relative to CONSOLE_ASSETS_DIR. */
export const CONSOLE_ENTRY = 'main.js';

export { consolePage, CONSOLE_CSP } from './page.js';
export { CONSOLE_CSS } from './styles.js';
