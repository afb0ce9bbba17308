// Debian's Chromium, headless, driven by playwright-core (no browser download).
import { chromium } from 'playwright-core';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';

export const CHROMIUM = process.env.PI_E2E_CHROMIUM || '/usr/bin/chromium';

export async function launchBrowser(scratch) {
  const profile = mkdtempSync(join(scratch, 'chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1400, height: 900 },
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      '--disable-dev-shm-usage'],
  });
  const page = context.pages()[0] || await context.newPage();
  return { context, page, close: () => context.close() };
}

/** The workbench URL for a folder, with an optional extension-development payload. */
export function workbenchUrl(base, folder, payload) {
  const u = new URL(base);
  u.searchParams.set('folder', folder);
  if (payload) u.searchParams.set('payload', JSON.stringify(payload));
  return u.toString();
}
