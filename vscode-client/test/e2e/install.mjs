#!/usr/bin/env node
// The platform .vsix as a user installs it (docs/release.md): a fresh code-server (Node 24,
// headless Chromium), no `pi-lsp` on PATH, no Python packages in the workspace, no
// pi.server.command, and no network for anything but 127.0.0.1 (proxies and package indexes
// point at a closed port) — install the .vsix, open the panel, type a prompt, see the answer
// (a scripted OpenAI-compatible model on 127.0.0.1). The extension must find and start the
// server it carries (bundled/libs) with the python3 on PATH; its log must say so.
//
//   node install.mjs --vsix dist/pi-lsp-linux-x64-X.vsix [--universal dist/pi-lsp-universal-X.vsix --find-links dist]
//
// --universal: then the universal .vsix in another fresh code-server, nothing on PATH either:
// the panel says the server was not found and offers "Install server"; one click makes the
// managed venv (pip, with --find-links naming the built wheel), the server starts, a prompt
// is answered, and the log says the server is the managed one.
//
// Prints `install: P passed, F failed, S skipped`; exit 2 when code-server's cache is missing.
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installExtension, locateCache, startCodeServer } from './lib/codeserver.mjs';
import { launchBrowser, workbenchUrl } from './lib/browser.mjs';
import { Tally } from './lib/report.mjs';
import { check, openWorkbench, runCommand, webviewFrame } from './lib/ui.mjs';
import { createWorkspace, freePort } from './lib/workspace.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const OUT = join(HERE, 'test-output', 'install');
const require = createRequire(import.meta.url);
const { startScripted } = require('./host/lib/openai.js');
const T = (id) => `[data-testid="${id}"]`;
const DEAD = 'http://127.0.0.1:9'; // nothing listens on the discard port

const argv = process.argv.slice(2);
const option = (name) => (argv.includes(name) ? argv[argv.indexOf(name) + 1] : undefined);
const vsixArg = option('--vsix');

/** Every file under `dir` whose name matches. */
function find(dir, re, acc = []) {
  if (!existsSync(dir)) return acc;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (lstatSync(p).isDirectory()) find(p, re, acc);
    else if (re.test(name)) acc.push(p);
  }
  return acc;
}

async function main() {
  const cs = locateCache();
  if (cs.missing) {
    console.log(`SKIP: ${cs.missing}`);
    process.exit(2);
  }
  if (!vsixArg || !existsSync(vsixArg)) throw new Error(`no .vsix at ${vsixArg} (node install.mjs --vsix FILE)`);
  const vsix = resolve(vsixArg);
  mkdirSync(OUT, { recursive: true });
  const tally = new Tally('install');
  const scratch = mkdtempSync(join(tmpdir(), 'pi-vsix-install-'));
  const modelPort = await freePort();
  const ws = createWorkspace(scratch, 'ws', {
    settings: {
      'pi.provider': 'openai-compatible',
      'pi.baseUrl': `http://127.0.0.1:${modelPort}/v1`,
      'pi.model': 'test-model',
      'files.autoSave': 'off',
    },
  });
  // no pi-lsp anywhere on PATH; python3 stays (the user's Python ≥ 3.11)
  const path = (process.env.PATH || '').split(':').filter((d) => d && !existsSync(join(d, 'pi-lsp'))).join(':');
  const offline = {
    PATH: path,
    http_proxy: DEAD, https_proxy: DEAD, HTTP_PROXY: DEAD, HTTPS_PROXY: DEAD, no_proxy: '127.0.0.1,localhost', NO_PROXY: '127.0.0.1,localhost',
    PIP_INDEX_URL: `${DEAD}/simple`, PIP_EXTRA_INDEX_URL: '', PIP_FIND_LINKS: '', PIP_NO_INDEX: '1',
    PIP_CONFIG_FILE: '/dev/null', npm_config_registry: DEAD, VIRTUAL_ENV: '', PYTHONPATH: '',
  };
  let server;
  let browser;
  let srv;
  try {
    await installExtension(cs, scratch, 'install', vsix);
    tally.record({ state: 'passed', title: `code-server --install-extension ${vsix.split('/').pop()}` });
    server = await startCodeServer(cs, scratch, { name: 'install', env: offline });
    srv = await startScripted(modelPort);
    browser = await launchBrowser(scratch);
    const { page } = browser;
    const ctx = { page, out: OUT, tally };
    let panel;
    await check(ctx, 'the workbench renders with the extension installed', async () => {
      await openWorkbench(page, workbenchUrl(server.url, ws));
    });
    await check(ctx, 'the panel opens and its server runs (no "not found" banner)', async () => {
      await runCommand(page, 'pi: Open panel');
      panel = await webviewFrame(page, T('prompt'));
      await panel.locator(T('model-picker')).waitFor({ timeout: 60_000 });
    });
    if (panel) {
      srv.text('Hello from the bundled server.');
      await check(ctx, 'a typed prompt gets its answer', async () => {
        await panel.locator(T('prompt')).click();
        await panel.locator(T('prompt')).pressSequentially('Say hello');
        await panel.locator(T('prompt')).press('Enter');
        await panel.locator(T('message-assistant'), { hasText: 'Hello from the bundled server.' }).waitFor({ timeout: 60_000 });
        await page.screenshot({ path: join(OUT, 'answered.png') });
      });
    }
    await check(ctx, 'the log says the server is the bundled one, run by python3', async () => {
      const logs = find(join(scratch, 'install-user-data', 'logs'), /pi\.log$/).map((f) => readFileSync(f, 'utf8')).join('\n');
      const line = logs.split('\n').find((l) => l.includes('(found via bundled)'));
      if (!line) throw new Error(`no "(found via bundled)" in the extension's log:\n${logs.slice(-3000)}`);
      if (!/python3? -I \S+bundled\/launch\.py/.test(line)) throw new Error(`unexpected start line: ${line}`);
      console.log(`  log: ${line.trim()}`);
    });
  } catch (err) {
    tally.broken('install harness', err);
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (server) await server.stop();
    if (srv) await srv.close?.();
  }
  if (option('--universal')) await universal(cs, tally, resolve(option('--universal')), resolve(option('--find-links') || '.'), path);
  console.log(tally.line());
  process.exit(tally.failed ? 1 : 0);
}

/** The universal .vsix: not found, one click on "Install server", then a prompt. */
async function universal(cs, tally, vsix, findLinks, path) {
  const scratch = mkdtempSync(join(tmpdir(), 'pi-vsix-universal-'));
  const modelPort = await freePort();
  const ws = createWorkspace(scratch, 'ws', {
    settings: {
      'pi.provider': 'openai-compatible',
      'pi.baseUrl': `http://127.0.0.1:${modelPort}/v1`,
      'pi.model': 'test-model',
      'files.autoSave': 'off',
    },
  });
  const env = {
    PATH: path,
    PIP_FIND_LINKS: `${findLinks} ${process.env.PIP_FIND_LINKS || ''}`.trim(),
    VIRTUAL_ENV: '',
    PYTHONPATH: '',
    no_proxy: '127.0.0.1,localhost',
    NO_PROXY: '127.0.0.1,localhost',
  };
  let server;
  let browser;
  let srv;
  try {
    await installExtension(cs, scratch, 'universal', vsix);
    tally.record({ state: 'passed', title: `code-server --install-extension ${vsix.split('/').pop()}` });
    server = await startCodeServer(cs, scratch, { name: 'universal', env });
    srv = await startScripted(modelPort);
    browser = await launchBrowser(scratch);
    const { page } = browser;
    const ctx = { page, out: OUT, tally };
    let panel;
    await check(ctx, 'universal: the workbench renders', async () => {
      await openWorkbench(page, workbenchUrl(server.url, ws));
    });
    await check(ctx, 'universal: the panel says the server was not found and offers "Install server"', async () => {
      await runCommand(page, 'pi: Open panel');
      panel = await webviewFrame(page, T('install-server'), 60_000);
      const status = await panel.locator(T('server-status')).innerText();
      if (!status.includes('Install server')) throw new Error(`unexpected status: ${status}`);
      await page.screenshot({ path: join(OUT, 'universal-not-found.png') });
    });
    if (panel) {
      await check(ctx, 'universal: one click installs the server into the managed venv, and it starts', async () => {
        await panel.locator(T('install-server')).click();
        await panel.locator(T('model-picker')).waitFor({ timeout: 600_000 });
      });
      srv.text('Hello from the managed server.');
      await check(ctx, 'universal: a typed prompt gets its answer', async () => {
        // the "not found" notification (it stays until dismissed) covers the prompt box
        await runCommand(page, 'Notifications: Clear All Notifications');
        await panel.locator(T('prompt')).click();
        await panel.locator(T('prompt')).pressSequentially('Say hello');
        await panel.locator(T('prompt')).press('Enter');
        await panel.locator(T('message-assistant'), { hasText: 'Hello from the managed server.' }).waitFor({ timeout: 60_000 });
      });
    }
    await check(ctx, 'universal: the log says the server is the managed one', async () => {
      const logs = find(join(scratch, 'universal-user-data', 'logs'), /pi\.log$/).map((f) => readFileSync(f, 'utf8')).join('\n');
      const line = logs.split('\n').find((l) => l.includes('(found via managed)'));
      if (!line) throw new Error(`no "(found via managed)" in the extension's log:\n${logs.slice(-3000)}`);
      console.log(`  log: ${line.trim()}`);
    });
  } catch (err) {
    tally.broken('universal harness', err);
  } finally {
    if (browser) await browser.close().catch(() => {});
    if (server) await server.stop();
    if (srv) await srv.close?.();
  }
}

main().catch((err) => {
  console.log(`install harness: ${err.stack || err}`);
  console.log('install: 0 passed, 1 failed, 0 skipped');
  process.exit(1);
});
