// Tier 3 (issue 42): a permission that waits while the user is away (another window in front,
// the pi panel hidden) produces a notification with "Allow" (clicking it answers the card); then
// the session exports to a page (pi: Export session as HTML), opened in Chromium and
// screenshotted (test-output/nudge-03-export.png, looked at by a reviewer).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { launchBrowser, workbenchUrl } from '../lib/browser.mjs';
import { check, openWorkbench, runCommand, webviewFrame } from '../lib/ui.mjs';

const require = createRequire(import.meta.url);
const { startScripted, gate } = require('../host/lib/openai.js');
const T = (id) => `[data-testid="${id}"]`;

function within(promise, ms, what) {
  let timer;
  const t = new Promise((_, rej) => { timer = setTimeout(() => rej(new Error(`no ${what} within ${ms / 1000} s`)), ms); });
  return Promise.race([promise, t]).finally(() => clearTimeout(timer));
}

export async function runUi({ server, ws, scratch, out, tally, modelPort }) {
  const srv = await startScripted(modelPort);
  const browser = await launchBrowser(scratch);
  const { page } = browser;
  const ctx = { page, out, tally };
  const shot = (name) => page.screenshot({ path: join(out, `nudge-${name}.png`) });
  let panel;
  let other;
  try {
    await check(ctx, 'nudges: workbench renders', async () => {
      await openWorkbench(page, workbenchUrl(server.url, ws));
      await runCommand(page, 'pi: Open panel');
      panel = await webviewFrame(page, T('prompt'), 60_000);
      await panel.locator(T('model-picker')).waitFor({ timeout: 30_000 }); // the server is attached
    });
    if (!panel) return;

    await check(ctx, 'a permission waiting while the user is away shows a notification with Allow', async () => {
      const g = gate();
      srv.tools([['bash', { command: 'echo nudged-$((6*7))' }]], { gate: g, gateAfter: 1 });
      srv.text('It ran while you were away.');
      await panel.locator(T('prompt')).click();
      await panel.locator(T('prompt')).pressSequentially('Run the echo.');
      await panel.locator(T('prompt')).press('Enter');
      await within(g.reached, 30_000, 'the model request');
      // the user turns away: another window comes to the front (Playwright's focus emulation
      // off, so the workbench really loses the focus) and the pi panel is hidden (headless
      // code-server does not tell the extension host of the window's focus, so the hidden panel
      // is what the extension sees here; the focus rule itself: test/unit/nudges.test.ts)
      await page.getByRole('button', { name: /(Hide|Close) Secondary Side Bar/ }).first().click();
      await page.locator('.part.auxiliarybar').waitFor({ state: 'hidden', timeout: 10_000 });
      const cdp = await browser.context.newCDPSession(page);
      await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
      other = await browser.context.newPage();
      await other.goto('about:blank');
      await other.bringToFront();
      await page.waitForFunction(() => !document.hasFocus(), null, { timeout: 10_000 });
      g.open();
      const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'pi needs your permission' });
      await toast.waitFor({ timeout: 30_000 });
      await page.bringToFront();
      await shot('01-permission-toast');
      const text = await toast.innerText();
      if (!text.includes('echo nudged')) throw new Error(`the notification does not name the command: ${text}`);
      await toast.locator('a.monaco-button, .monaco-button', { hasText: 'Allow' }).first().click();
      await runCommand(page, 'pi: Open panel');
      panel = await webviewFrame(page, T('prompt'), 30_000);
      await panel.locator(T('message-assistant'), { hasText: 'It ran while you were away.' }).waitFor({ timeout: 30_000 });
      await shot('02-after-allow');
      await other.close();
    });

    await check(ctx, 'the session exports to a self-contained page that renders', async () => {
      await runCommand(page, 'pi: Export session as HTML');
      const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'session exported to' });
      await toast.waitFor({ timeout: 30_000 });
      const path = /exported to (\S+\.html)/.exec(await toast.innerText())?.[1];
      if (!path) throw new Error('no path in the export notification');
      const view = await browser.context.newPage();
      const remote = [];
      view.on('request', (r) => { if (!r.url().startsWith('file:')) remote.push(r.url()); });
      await view.goto(`file://${path}`);
      await view.locator('h1', { hasText: 'Run the echo.' }).waitFor();
      await view.locator('.tool .name', { hasText: 'bash' }).waitFor();
      await view.screenshot({ path: join(out, 'nudge-03-export.png'), fullPage: true });
      if (remote.length) throw new Error(`the page loaded remote assets: ${remote.join(', ')}`);
      await view.close();
    });
  } finally {
    await browser.close().catch(() => {});
    await srv.close();
  }
}
