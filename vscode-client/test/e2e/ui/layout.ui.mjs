// Tier 3: the pi view container's layout as a user sees it (screenshots in test-output/,
// looked at by a reviewer): with no review findings the Review section is one header line,
// not half the container; the Context summary is read whole (wrapped, never "0 te…"); with
// no server found, the welcome text stands whole below the banner.
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, workbenchUrl } from '../lib/browser.mjs';
import { createWorkspace } from '../lib/workspace.mjs';
import { check, openWorkbench, runCommand, webviewFrame } from '../lib/ui.mjs';

const require = createRequire(import.meta.url);
const { startScripted } = require('../host/lib/openai.js');

const T = (id) => `[data-testid="${id}"]`;

/** The height of the pane (view) titled `title` in the workbench. */
async function paneHeight(page, title) {
  const pane = page.locator('.pane', { has: page.locator('.pane-header', { hasText: title }) }).first();
  const box = await pane.boundingBox();
  if (!box) throw new Error(`no pane ${title}`);
  return box.height;
}

export async function runUi({ server, ws: shared, scratch, out, tally, modelPort }) {
  const settings = JSON.parse(readFileSync(join(shared, '.vscode', 'settings.json'), 'utf8'));
  const ws = createWorkspace(scratch, 'ws-layout', { settings });
  writeFileSync(join(ws, 'AGENTS.md'), 'Run the tests with make check.\n');
  const missing = createWorkspace(scratch, 'ws-missing', {
    settings: { ...settings, 'pi.server.command': join(scratch, 'no-such-pi-lsp'), 'pi.server.mode': 'stdio' },
  });
  const srv = await startScripted(modelPort);
  const browser = await launchBrowser(scratch);
  const { page } = browser;
  await page.setViewportSize({ width: 1280, height: 800 });
  const ctx = { page, out, tally };
  const shot = (name) => page.screenshot({ path: join(out, `${name}.png`) });
  try {
    await check(ctx, 'an empty Review section is one header line; the Context summary is read whole', async () => {
      await openWorkbench(page, workbenchUrl(server.url, ws));
      await runCommand(page, 'pi: Open panel');
      const panel = await webviewFrame(page, T('prompt'), 60_000);
      const toggle = panel.locator(T('context-toggle'), { hasText: '1 file' });
      await toggle.waitFor({ timeout: 60_000 });
      await runCommand(page, 'Notifications: Clear All Notifications').catch(() => {});
      await shot('layout-1-empty-review');
      const review = await paneHeight(page, 'Review');
      const pi = await paneHeight(page, 'pi');
      if (review > 60) throw new Error(`the empty Review section is ${review}px high (pi: ${pi}px)`);
      const cut = await toggle.evaluate((el) => el.scrollWidth > el.clientWidth + 1);
      const text = await toggle.textContent();
      if (cut || !/1 file, .*templates?\)/.test(text || '')) throw new Error(`the Context summary is cut: ${text}`);
      await toggle.click();
      await panel.locator(T('context-file'), { hasText: 'AGENTS.md' }).waitFor();
      await shot('layout-2-context');
      const hidden = await panel.evaluate(() => {
        const prompt = document.querySelector('[data-testid="prompt"]');
        return prompt ? prompt.getBoundingClientRect().bottom > window.innerHeight + 1 : true;
      });
      if (hidden) throw new Error('the composer was pushed out of the panel');
      await toggle.click();
    });

    await check(ctx, 'findings open the collapsed Review section', async () => {
      const git = (...args) => execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: ws });
      writeFileSync(join(ws, 'calc.py'), 'def average(values):\n    if not values:\n        return 0.0\n    return sum(values) / len(values)\n');
      git('init', '-q');
      git('add', 'calc.py');
      git('commit', '-q', '-m', 'before', '--', 'calc.py');
      writeFileSync(join(ws, 'calc.py'), 'def average(values):\n    return sum(values) / len(values)\n');
      srv.tools([['report_finding', { path: 'calc.py', line: 2, severity: 'error', title: 'Division by zero', body: 'an empty list' }]]);
      srv.text('One finding.');
      await runCommand(page, 'pi: Review Changes');
      const row = page.locator('.pane', { has: page.locator('.pane-header', { hasText: 'Review' }) }).locator('.monaco-list-row', { hasText: 'Division by zero' });
      await row.first().waitFor({ timeout: 60_000 });
      await runCommand(page, 'Notifications: Clear All Notifications').catch(() => {});
      await shot('layout-4-review-findings');
    });

    await check(ctx, 'with no server found, the welcome text stands whole below the banner', async () => {
      await page.setViewportSize({ width: 1280, height: 560 }); // a short window: little room
      await openWorkbench(page, workbenchUrl(server.url, missing));
      await runCommand(page, 'pi: Open panel');
      const panel = await webviewFrame(page, T('banner'), 60_000);
      await panel.locator(`${T('banner')}[data-status="missing"]`).waitFor({ timeout: 60_000 });
      await runCommand(page, 'Notifications: Clear All Notifications').catch(() => {});
      await shot('layout-3-not-found');
      const clipped = await panel.evaluate(() => {
        const banner = document.querySelector('[data-testid="banner"]');
        const empty = document.querySelector('.empty');
        if (!banner || !empty) return 'no banner or no welcome text';
        const scroller = empty.closest('.transcript');
        const b = banner.getBoundingClientRect();
        const e = empty.getBoundingClientRect();
        const s = scroller ? scroller.getBoundingClientRect() : e;
        if (e.top < b.bottom - 1 || e.top < s.top - 1) return `the welcome text starts under the banner (${e.top} < ${Math.max(b.bottom, s.top)})`;
        if (e.bottom > s.bottom + 1 && scroller && scroller.scrollHeight > scroller.clientHeight) {
          return `the welcome text is cut at the bottom (${e.bottom} > ${s.bottom})`;
        }
        return '';
      });
      if (clipped) throw new Error(clipped);
    });
  } finally {
    await browser.close();
    await srv.close();
  }
}
