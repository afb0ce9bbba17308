// Tier 3: a `task` child in the panel (docs/subagents.md). The model calls `task`; the child
// asks to run a command — the question reaches the panel as the usual permission card,
// titled "[general] …", answered there; the task card shows the child's state, and expanded,
// its transcript (the command it ran, its answer).
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { launchBrowser, workbenchUrl } from '../lib/browser.mjs';
import { check, openWorkbench, runCommand, webviewFrame } from '../lib/ui.mjs';

const require = createRequire(import.meta.url);
const { startScripted } = require('../host/lib/openai.js');
const T = (id) => `[data-testid="${id}"]`;
const PANEL_COMMAND = 'pi: Open panel';

export async function runUi({ server, ws, scratch, out, tally, modelPort }) {
  const srv = await startScripted(modelPort);
  const browser = await launchBrowser(scratch);
  const { page } = browser;
  const ctx = { page, out, tally };
  const shot = (name) => page.screenshot({ path: join(out, `${name}.png`) });
  let panel;
  try {
    await check(ctx, 'subagents: the panel opens', async () => {
      await openWorkbench(page, workbenchUrl(server.url, ws));
      await runCommand(page, PANEL_COMMAND);
      panel = await webviewFrame(page, T('prompt'));
      await panel.locator(T('model-picker')).waitFor({ timeout: 30_000 });
    });
    if (!panel) return;
    // the scripted model answers in request order: parent, child, child, parent
    srv.tools([['task', { description: 'check the tree', prompt: 'Run git status and report.' }]]);
    srv.tools([['bash', { command: 'git status --short' }]]);
    srv.text('The child says: the tree is clean.');
    srv.text('Parent: all clean.');

    await check(ctx, "subagents: the child's question is a permission card in the panel, attributed", async () => {
      await panel.locator(T('prompt')).fill('Check the tree with a subagent.');
      await panel.locator(T('prompt')).press('Enter');
      const card = panel.locator(`${T('permission-card')}[data-status="pending"]`, { hasText: '[general]' }).first();
      await card.waitFor({ timeout: 60_000 });
      await shot('s1-child-permission');
      await card.locator(T('permission-allow-once')).click();
    });

    await check(ctx, 'subagents: the task card shows the child done, and its transcript expanded', async () => {
      await panel.locator(T('message-assistant'), { hasText: 'Parent: all clean.' }).waitFor({ timeout: 60_000 });
      const task = panel.locator(`${T('tool-card')}[data-tool="task"]`).first();
      await task.locator(`${T('child')}[data-state="completed"]`).waitFor({ timeout: 30_000 });
      await task.locator('.tool-head').click();
      const transcript = task.locator(T('child-transcript'));
      await transcript.waitFor({ timeout: 10_000 });
      const text = await transcript.innerText();
      if (!text.includes('git status') || !text.includes('the tree is clean')) throw new Error(`transcript: ${text}`);
      await shot('s2-task-card-child');
    });
  } finally {
    await browser.close();
    await srv.close();
  }
}
