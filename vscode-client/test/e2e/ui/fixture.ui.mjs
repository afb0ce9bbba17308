// Tier 3 plumbing check with the throwaway fixture extension installed from its .vsix.
import { join } from 'node:path';
import { launchBrowser, workbenchUrl } from '../lib/browser.mjs';
import { check, openWorkbench, runCommand, webviewFrame } from '../lib/ui.mjs';

export async function runUi({ server, ws, scratch, out, tally }) {
  const browser = await launchBrowser(scratch);
  const ctx = { page: browser.page, out, tally };
  const { page } = browser;
  try {
    await check(ctx, 'workbench renders', async () => {
      await openWorkbench(page, workbenchUrl(server.url, ws));
    });
    let frame;
    await check(ctx, 'fixture panel opens from the command palette', async () => {
      await runCommand(page, 'pi fixture: Show panel');
      frame = await webviewFrame(page, '[data-testid=prompt]');
    });
    await check(ctx, 'typing in the webview reaches the extension and back', async () => {
      await frame.locator('[data-testid=prompt]').fill('hello');
      await frame.locator('[data-testid=prompt]').press('Enter');
      await frame.locator('[data-testid=transcript]', { hasText: 'echo: hello' }).waitFor({ timeout: 10_000 });
      await page.screenshot({ path: join(out, 'fixture-panel.png') });
    });
  } finally {
    await browser.close();
  }
}
