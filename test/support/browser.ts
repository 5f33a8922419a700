// Test support: Debian's headless Chromium driven by playwright-core (no browser download).
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export interface TestBrowser {
  context: BrowserContext;
  /** A new tab that records console errors, failed requests and CSP violations in `problems`. */
  newPage(): Promise<Page>;
  problems: string[];
  close(): Promise<void>;
}

/** One headless Chromium with a fresh profile; no network beyond what the tests open. */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install chromium (scripts/test.sh installs it when run as root)`);
  const profile = mkdtempSync(join(tmpdir(), 'gregor-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    viewport: { width: 1280, height: 860 },
    timezoneId: 'UTC',
    locale: 'en-US',
  });
  const problems: string[] = [];
  return {
    context,
    problems,
    async newPage() {
      const page = await context.newPage();
      page.on('console', (m) => {
        if (m.type() === 'error') problems.push(`console: ${m.text()}`);
      });
      page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
      return page;
    },
    async close() {
      await context.close().catch(() => {});
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
