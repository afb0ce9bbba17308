// Tier 3: `@` mentions of workspace symbols in the composer (feature table row 48). A workspace
// of its own with two Python modules; symbols come from test/e2e/symbols-ext (a stand-in for a
// Python language server, installed beside the .vsix by run.mjs) through
// vscode.executeWorkspaceSymbolProvider. Typing `@load_con` lists load_config with its kind,
// container and path (screenshot symbols-1-completion.png); picking it inserts
// `@app/config.py#L4-8` (the function's whole range) and the sent prompt carries those lines
// to the model.
import { createRequire } from 'node:module';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchBrowser, workbenchUrl } from '../lib/browser.mjs';
import { createWorkspace } from '../lib/workspace.mjs';
import { check, openWorkbench, runCommand, webviewFrame } from '../lib/ui.mjs';

const require = createRequire(import.meta.url);
const { startScripted } = require('../host/lib/openai.js');

const T = (id) => `[data-testid="${id}"]`;

const CONFIG_PY = `import json


def load_config(name):
    """Read the named settings file."""
    with open(f"{name}.json") as f:
        data = json.load(f)
    return data  # LOAD_CONFIG_BODY


class ConfigCache:
    def load_config_cached(self, name):
        return load_config(name)
`;
const MAIN_PY = `from app.config import load_config

settings = load_config("main")
`;

export async function runUi({ server, ws: shared, scratch, out, tally, modelPort }) {
  const settings = JSON.parse(readFileSync(join(shared, '.vscode', 'settings.json'), 'utf8'));
  const ws = createWorkspace(scratch, 'ws-symbols', { settings });
  mkdirSync(join(ws, 'app'), { recursive: true });
  writeFileSync(join(ws, 'app', 'config.py'), CONFIG_PY);
  writeFileSync(join(ws, 'app', 'main.py'), MAIN_PY);
  const srv = await startScripted(modelPort);
  const browser = await launchBrowser(scratch);
  const { page } = browser;
  const ctx = { page, out, tally };
  let panel;
  try {
    await check(ctx, '@load_con offers the function load_config with its kind, container and path', async () => {
      await openWorkbench(page, workbenchUrl(server.url, ws));
      await runCommand(page, 'pi: Open panel');
      panel = await webviewFrame(page, T('prompt'), 60_000);
      // the server is up (the panel has its context) before anything is typed
      await panel.locator(T('context-toggle')).waitFor({ timeout: 60_000 });
      await runCommand(page, 'Notifications: Clear All Notifications').catch(() => {});
      const input = panel.locator(T('prompt'));
      await input.click();
      await input.pressSequentially('Explain @load_con');
      const row = panel.locator(`${T('completion-item')}[data-kind="function"]`, { hasText: 'load_config' });
      await row.waitFor({ timeout: 30_000 });
      const text = (await row.innerText()).replace(/\s+/g, ' ');
      if (!text.includes('fn') || !text.includes('app.config · app/config.py')) throw new Error(`the row reads ${JSON.stringify(text)}`);
      const method = panel.locator(`${T('completion-item')}[data-kind="method"]`, { hasText: 'load_config_cached' });
      await method.waitFor();
      const mtext = (await method.innerText()).replace(/\s+/g, ' ');
      if (!mtext.includes('ConfigCache · app/config.py')) throw new Error(`the method row reads ${JSON.stringify(mtext)}`);
      await page.screenshot({ path: join(out, 'symbols-1-completion.png') });
      const box = await panel.locator('.completion').boundingBox();
      if (box) await page.screenshot({ path: join(out, 'symbols-1-completion-zoom.png'), clip: { x: Math.max(0, box.x - 10), y: Math.max(0, box.y - 10), width: box.width + 20, height: box.height + 60 } }).catch(() => {});
    });
    if (!panel) return;

    await check(ctx, 'picking load_config inserts @app/config.py#L4-8 and the model gets those lines', async () => {
      const input = panel.locator(T('prompt'));
      const row = panel.locator(`${T('completion-item')}[data-kind="function"]`, { hasText: 'load_config' });
      await row.dispatchEvent('mousedown');
      const value = await input.inputValue();
      if (value !== 'Explain @app/config.py#L4-8 ') throw new Error(`the input holds ${JSON.stringify(value)}`);
      srv.text('It reads JSON.');
      await input.press('Enter');
      await panel.locator(T('message-assistant'), { hasText: 'It reads JSON.' }).waitFor({ timeout: 60_000 });
      await srv.waitRequests(1);
      const last = srv.messages(srv.requests.length - 1).filter((m) => m.role === 'user').pop();
      const sent = typeof last.content === 'string' ? last.content : last.content.map((c) => c.text || '').join('');
      for (const want of ['def load_config(name):', 'return data  # LOAD_CONFIG_BODY']) {
        if (!sent.includes(want)) throw new Error(`the model's prompt lacks ${JSON.stringify(want)}: ${JSON.stringify(sent)}`);
      }
      if (sent.includes('class ConfigCache')) throw new Error(`more than the symbol's lines were attached: ${JSON.stringify(sent)}`);
    });
  } finally {
    await browser.close();
    await srv.close();
  }
}
