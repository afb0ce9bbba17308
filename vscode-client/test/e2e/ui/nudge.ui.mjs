// Tier 3 (issue 42): a permission that waits while the window is unfocused (another window in
// front, the pi panel still open) produces a notification with "Allow" and "Open" and the view's
// badge counts it (test-output/nudge-01-permission-toast.png); clicking Allow answers it; then
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

    await check(ctx, 'a permission waiting while the window is unfocused shows a notification with Allow and the view badge', async () => {
      const g = gate();
      srv.tools([['bash', { command: 'echo nudged-$((6*7))' }]], { gate: g, gateAfter: 1 });
      srv.text('It ran while you were away.');
      await panel.locator(T('prompt')).click();
      await panel.locator(T('prompt')).pressSequentially('Run the echo.');
      await panel.locator(T('prompt')).press('Enter');
      await within(g.reached, 30_000, 'the model request');
      // The user turns away with the pi panel still open. VS Code in a browser learns of the
      // window's focus from focus/blur events of the workbench's own document (BrowserHostService
      // .onDidChangeFocus -> MainThreadWindow -> vscode.window.state.focused): the focus must be
      // in the workbench, not in the panel's webview iframe (whose blur the workbench never sees),
      // so the Explorer takes it first. Then Playwright's focus emulation is turned off and
      // another page comes to the front: the workbench's window gets a real blur.
      await page.locator('.explorer-folders-view .monaco-list-row', { hasText: 'README.md' }).first().click();
      await page.waitForFunction(() => document.activeElement && document.activeElement.tagName !== 'IFRAME', null, { timeout: 10_000 })
        .catch(() => { throw new Error('the workbench did not take the focus from the webview'); });
      const cdp = await browser.context.newCDPSession(page);
      await cdp.send('Emulation.setFocusEmulationEnabled', { enabled: false });
      other = await browser.context.newPage();
      await other.goto('about:blank');
      await other.bringToFront();
      await page.waitForFunction(() => !document.hasFocus(), null, { timeout: 10_000 })
        .catch(() => { throw new Error('the workbench still has the focus with another page in front'); });
      if (!(await page.locator('.part.auxiliarybar').isVisible())) throw new Error('the pi panel was hidden');
      g.open();
      // (the toast is looked at while the window is still in the background: VS Code clears the
      // toasts when its window gets the focus back)
      const toast = page.locator('.notifications-toasts .notification-toast', { hasText: 'pi needs your permission' });
      await toast.waitFor({ timeout: 30_000 });
      const badge = page.locator('.part.auxiliarybar .composite-bar .badge .badge-content, .part.auxiliarybar .badge-content');
      await badge.first().waitFor({ timeout: 10_000 });
      const count = (await badge.first().innerText()).trim();
      await shot('01-permission-toast');
      if (count !== '1') throw new Error(`the view badge shows ${JSON.stringify(count)}, not 1`);
      const text = await toast.innerText();
      if (!text.includes('echo nudged')) throw new Error(`the notification does not name the command: ${text}`);
      if (!/Allow/.test(text) || !/Open/.test(text)) throw new Error(`the notification has no Allow / Open: ${text}`);
      await toast.locator('a.monaco-button, .monaco-button', { hasText: 'Allow' }).first().click();
      await page.bringToFront();
      await panel.locator(T('message-assistant'), { hasText: 'It ran while you were away.' }).waitFor({ timeout: 30_000 });
      await badge.first().waitFor({ state: 'hidden', timeout: 10_000 });
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
