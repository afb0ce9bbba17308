// Tier 3: the project's context in the panel (docs/context.md). A workspace of its own with
// an AGENTS.md, a prompt template in the agent dir (PI_CODING_AGENT_DIR, set by run.mjs to
// a scratch directory): the Context section lists the file, and a click opens it in an
// editor; `/rev` in the composer completes the template with its description and argument
// hint; a template added afterwards appears after Reload; the typed `/review a.py` reaches the
// model expanded; an unknown `/nosuch` is sent as typed with a warning toast.
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, workbenchUrl } from '../lib/browser.mjs';
import { createWorkspace } from '../lib/workspace.mjs';
import { check, openWorkbench, runCommand, webviewFrame } from '../lib/ui.mjs';

const require = createRequire(import.meta.url);
const { startScripted } = require('../host/lib/openai.js');

const T = (id) => `[data-testid="${id}"]`;

export async function runUi({ server, ws: shared, scratch, out, tally, modelPort }) {
  const agentDir = process.env.PI_CODING_AGENT_DIR;
  const settings = JSON.parse(readFileSync(join(shared, '.vscode', 'settings.json'), 'utf8'));
  const ws = createWorkspace(scratch, 'ws-context', { settings });
  writeFileSync(join(ws, 'AGENTS.md'), 'Run the tests with make check.\n');
  mkdirSync(join(agentDir, 'prompts'), { recursive: true });
  writeFileSync(join(agentDir, 'prompts', 'review.md'), '---\ndescription: Review a file\nargument-hint: FILE\n---\nReview $1 with care.\n');
  const srv = await startScripted(modelPort);
  const browser = await launchBrowser(scratch);
  const { page } = browser;
  const ctx = { page, out, tally };
  const shot = (name) => page.screenshot({ path: join(out, `${name}.png`) });
  let panel;
  try {
    await check(ctx, 'the Context section lists AGENTS.md and opens it', async () => {
      if (!agentDir) throw new Error('PI_CODING_AGENT_DIR is not set by run.mjs');
      await openWorkbench(page, workbenchUrl(server.url, ws));
      await runCommand(page, 'pi: Open panel');
      panel = await webviewFrame(page, T('prompt'), 60_000);
      await panel.locator(T('context-toggle'), { hasText: '1 file' }).waitFor({ timeout: 60_000 });
      // a notification of the start-up (a background server's first connection attempt on a
      // loaded machine) would cover the panel's buttons
      await runCommand(page, 'Notifications: Clear All Notifications').catch(() => {});
      await panel.locator(T('context-toggle')).click();
      const file = panel.locator(T('context-file'), { hasText: 'AGENTS.md' });
      await file.waitFor();
      await shot('context-1-section');
      await file.click();
      await page.locator('.monaco-editor .view-lines', { hasText: 'make check' }).waitFor({ timeout: 30_000 });
    });
    if (!panel) return;

    await check(ctx, '/ in the composer completes the template with its description and hint', async () => {
      const input = panel.locator(T('prompt'));
      await input.click();
      await input.pressSequentially('/rev');
      await panel.locator(T('completion-item'), { hasText: '/review <FILE> — Review a file' }).waitFor();
      await shot('context-2-completion');
      await input.fill('');
    });

    await check(ctx, 'a template added later is offered after Reload', async () => {
      writeFileSync(join(agentDir, 'prompts', 'fix.md'), '---\ndescription: Fix it\n---\nFix $1.\n');
      await panel.locator(T('context-reload')).click();
      await panel.locator(T('context-file'), { hasText: '/fix' }).waitFor({ timeout: 30_000 });
      const input = panel.locator(T('prompt'));
      await input.click();
      await input.pressSequentially('/fi');
      await panel.locator(T('completion-item'), { hasText: '/fix <arguments> — Fix it' }).waitFor();
      await input.fill('');
    });

    await check(ctx, 'a typed /review a.py reaches the model expanded', async () => {
      srv.text('Reviewed.');
      const input = panel.locator(T('prompt'));
      await input.click();
      await input.fill('/review a.py');
      await input.press('Enter');
      await panel.locator(T('message-assistant'), { hasText: 'Reviewed.' }).waitFor({ timeout: 30_000 });
      await srv.waitRequests(1);
      const last = srv.messages(0).filter((m) => m.role === 'user').pop();
      const text = typeof last.content === 'string' ? last.content : last.content.map((c) => c.text || '').join('');
      if (!text.startsWith('Review a.py with care.')) throw new Error(`the model got: ${JSON.stringify(text)}`);
    });

    await check(ctx, 'an unknown /name is sent as typed, with a warning in the panel', async () => {
      srv.text('As typed.');
      const input = panel.locator(T('prompt'));
      await input.click();
      await input.fill('/nosuch thing');
      await input.press('Enter');
      await panel.locator('.toast.warning', { hasText: '/nosuch' }).waitFor({ timeout: 30_000 });
      await panel.locator(T('message-assistant'), { hasText: 'As typed.' }).waitFor({ timeout: 30_000 });
    });
  } finally {
    await browser.close();
    await srv.close();
  }
}
