#!/usr/bin/env node
// Runs the pi extension's tests in a real VS Code (code-server 4.139.1, Node 24, headless
// Chromium). Needs `bash .ci/install-vscode.sh` first.
//
//   node run.mjs [--tiers 2,3] [--specs a.test.js,b.test.js] [--fixture] [--no-build] [--keep]
//
//   tier 2  extension-host tests: mocha inside code-server's real extension host, the
//           extension loaded from vscode-client/ (extensionDevelopmentPath), against the real
//           `pi-lsp` (the repo's .venv) with scripted providers. With PI_E2E_REAL_BASE_URL (and
//           PI_E2E_REAL_MODEL) set, then `tier 2r`: host/real.test.js against that
//           OpenAI-compatible server, in a second window of the same code-server (the Python
//           suite does this with its llama.cpp server: tests/editors/test_vscode.py).
//   tier 3  UI drive: the packaged .vsix installed into code-server, driven in Chromium with
//           playwright-core (ui/panel.ui.mjs, ui/reattach.ui.mjs, ui/nudge.ui.mjs, ui/symbols.ui.mjs, ui/early.ui.mjs; --specs picks among them
//           too); screenshots land in test-output/.
//   --fixture  run both tiers against the throwaway extension in fixture-ext/ (plumbing check).
//
// Each tier prints `tier N: P passed, F failed, S skipped`; the exit status is non-zero when
// anything failed (exit 2 when the cache is missing, so callers can tell "not installed").
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, statSync, writeFileSync, cpSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

import { locateCache, startCodeServer, installExtension } from './lib/codeserver.mjs';
import { Tally, startReportServer } from './lib/report.mjs';
import { createWorkspace, freePort, piSettings } from './lib/workspace.mjs';
import { buildFixtureVsix } from './lib/vsix.mjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const CLIENT = resolve(HERE, '..', '..');
const REPO = resolve(CLIENT, '..');
const OUT = join(HERE, 'test-output');

const argv = process.argv.slice(2);
const flag = (name) => argv.includes(name);
const option = (name, dflt) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : dflt;
};
const tiers = option('--tiers', '2,3').split(',').map((s) => s.trim());
const fixture = flag('--fixture');
const keep = flag('--keep');

const started = Date.now();
const elapsed = () => `${((Date.now() - started) / 1000).toFixed(1)} s`;

function sh(cmd, args, cwd, env = {}) {
  execFileSync(cmd, args, { cwd, stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, ...env } });
}

function newest(dir, suffix) {
  const files = readdirSync(dir).filter((f) => f.endsWith(suffix))
    .map((f) => join(dir, f)).sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs);
  return files[0];
}

/** npm ci only when the lockfile changed since the last install. */
function npmCi(dir) {
  const lock = join(dir, 'package-lock.json');
  const marker = join(dir, 'node_modules', '.package-lock.json');
  if (existsSync(marker) && statSync(marker).mtimeMs >= statSync(lock).mtimeMs) return;
  sh('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], dir);
}

function build(cs) {
  if (fixture) {
    const vsix = buildFixtureVsix(join(HERE, 'fixture-ext'), join(OUT, 'pi-e2e-fixture.vsix'));
    return { extPath: join(HERE, 'fixture-ext'), vsix, id: 'pi-lsp-tests.pi-e2e-fixture' };
  }
  if (!existsSync(join(CLIENT, 'package.json'))) {
    throw new Error(`no extension at ${CLIENT} (package.json missing)`);
  }
  if (!flag('--no-build')) {
    // Node 24 first on PATH: the same Node that runs code-server builds the extension.
    const env = { PATH: `${cs.nodeBin}:${process.env.PATH}` };
    npmCi(CLIENT);
    sh('npm', ['run', '--silent', 'package'], CLIENT, env);
  }
  const vsix = newest(CLIENT, '.vsix');
  if (!vsix) throw new Error(`npm run package produced no .vsix in ${CLIENT}`);
  const pkg = JSON.parse(execFileSync('node', ['-p', 'JSON.stringify(require("./package.json"))'], { cwd: CLIENT }));
  return { extPath: CLIENT, vsix, id: `${pkg.publisher}.${pkg.name}` };
}

function piServer() {
  const cmd = process.env.PI_LSP_SERVER || join(REPO, '.venv', 'bin', 'pi-lsp');
  if (!existsSync(cmd)) throw new Error(`pi-lsp not found at ${cmd} (make the repo's venv or set PI_LSP_SERVER)`);
  return cmd;
}

/** The host specs of tier 2 (all but the fixture's and the real model's), or --specs' pick. */
function hostSpecs() {
  return readdirSync(join(HERE, 'host'))
    .filter((f) => f.endsWith('.test.js') && f !== 'fixture.test.js' && f !== 'real.test.js').sort()
    .filter((f) => !option('--specs') || option('--specs').split(',').includes(f));
}

// Tier 2, and with PI_E2E_REAL_BASE_URL (an OpenAI-compatible server, e.g. tests/real_server's
// llama.cpp) its real-model pass `tier 2r` (host/real.test.js against that server): one
// code-server for both, each pass in a window (workspace, extension host, browser) of its own.
async function tier2(cs, scratch, ext) {
  const real = fixture ? undefined : process.env.PI_E2E_REAL_BASE_URL;
  const passes = [{ tier: 'tier 2', ws: 'ws2', specs: fixture ? ['fixture.test.js'] : hostSpecs() }];
  if (real) passes.push({ tier: 'tier 2r', ws: 'ws2r', specs: ['real.test.js'], real });
  console.log('tier 2: extension-host tests (mocha in the real extension host)');
  // PATH without any pi-lsp, so the "no server anywhere" discovery case is real.
  const path = (process.env.PATH || '').split(':').filter((d) => d && !existsSync(join(d, 'pi-lsp'))).join(':');
  let server;
  try {
    server = await startCodeServer(cs, scratch, { name: 'tier2', smoke: true, env: { PATH: path } });
  } catch (err) {
    return passes.map((p) => {
      const tally = new Tally(p.tier);
      tally.broken(`${p.tier} harness`, err);
      console.log(`${tally.line()}  [${elapsed()}]`);
      return tally;
    });
  }
  const tallies = [];
  try {
    for (const p of passes) tallies.push(await hostPass(server, scratch, ext, p));
  } finally {
    await server.stop();
  }
  return tallies;
}

/** One window of tier 2's code-server: mocha over `specs` in its extension host. */
async function hostPass(server, scratch, ext, { tier, ws: wsName, specs, real }) {
  const tally = new Tally(tier);
  if (real) console.log(`${tier}: the real-model spec against ${real}`);
  const report = await startReportServer(tally);
  let browser;
  try {
    const modelPort = await freePort();
    // The host tier tests the extension over stdio (pi.server.mode "stdio"); the UI tier runs
    // the default, the background server, and reloads the window mid-run (reattach.ui.mjs).
    const settings = fixture ? {} : { ...piSettings(piServer(), modelPort), 'pi.server.mode': 'stdio' };
    if (real) {
      settings['pi.baseUrl'] = real;
      settings['pi.model'] = process.env.PI_E2E_REAL_MODEL || 'default';
    }
    const ws = createWorkspace(scratch, wsName, { settings });
    const config = {
      PI_E2E_MODEL_PORT: String(modelPort),
      PI_E2E_REPORT_URL: report.url,
      PI_E2E_SPECS: specs.join(','),
      PI_E2E_WORKSPACE: ws,
      PI_E2E_SERVER: fixture ? '' : piServer(),
      PI_E2E_SCRATCH: scratch,
      PI_E2E_REPO: REPO,
      PI_E2E_EXTENSION_ID: ext.id,
    };
    writeFileSync(join(OUT, real ? 'run-config-2r.json' : 'run-config.json'), JSON.stringify(config, null, 2));
    const remote = (p) => `vscode-remote://127.0.0.1:${server.port}${p}`;
    const payload = [
      ['extensionDevelopmentPath', remote(ext.extPath)],
      ['extensionTestsPath', remote(join(HERE, 'host', 'index.js'))],
      ['extensionEnvironment', JSON.stringify(config)],
    ];
    const { launchBrowser, workbenchUrl } = await import('./lib/browser.mjs');
    browser = await launchBrowser(scratch);
    browser.page.on('console', (m) => { if (m.type() === 'error' && process.env.PI_E2E_VERBOSE) console.log(`  [page] ${m.text()}`); });
    await browser.page.goto(workbenchUrl(server.url, ws, payload));
    const limit = Number(process.env.PI_E2E_TIER2_LIMIT_MS || 300_000);
    const hang = new Promise((_, rej) => setTimeout(() => rej(new Error(
      `no result from the extension host after ${limit / 1000} s (log: ${server.logFile})`)), limit).unref());
    await Promise.race([report.ended, hang]);
  } catch (err) {
    tally.broken(`${tier} harness`, err);
    const shot = real ? 'tier2r-harness-failure.png' : 'tier2-harness-failure.png';
    if (browser) await browser.page.screenshot({ path: join(OUT, shot) }).catch(() => {});
  } finally {
    if (browser) await browser.close().catch(() => {});
    await report.close();
  }
  console.log(`${tally.line()}  [${elapsed()}]`);
  return tally;
}

async function tier3(cs, scratch, ext) {
  const tally = new Tally('tier 3');
  console.log('tier 3: UI drive of the packaged .vsix in headless Chromium');
  let server;
  try {
    const modelPort = await freePort();
    const ws = createWorkspace(scratch, 'ws3', { settings: fixture ? {} : piSettings(piServer(), modelPort) });
    await installExtension(cs, scratch, 'tier3', ext.vsix);
    // symbols.ui.mjs: workspace symbols of *.py files, as a Python language server gives them
    if (!fixture) await installExtension(cs, scratch, 'tier3', buildFixtureVsix(join(HERE, 'symbols-ext'), join(OUT, 'pi-e2e-symbols.vsix')));
    server = await startCodeServer(cs, scratch, { name: 'tier3' });
    // panel.ui.mjs, reattach.ui.mjs, context.ui.mjs (--specs picks some), one browser each, in one code-server
    const modules = fixture ? ['fixture.ui.mjs']
      : ['panel.ui.mjs', 'reattach.ui.mjs', 'subagents.ui.mjs', 'context.ui.mjs', 'nudge.ui.mjs', 'symbols.ui.mjs', 'layout.ui.mjs', 'early.ui.mjs'].filter((f) => !option('--specs') || option('--specs').split(',').includes(f));
    for (const m of modules) {
      const { runUi } = await import(`./ui/${m}`);
      await runUi({ server, ws, scratch, out: OUT, tally, repo: REPO, modelPort, piCommand: fixture ? null : piServer() });
    }
  } catch (err) {
    tally.broken('tier 3 harness', err);
  } finally {
    if (server) await server.stop();
  }
  console.log(`${tally.line()}  [${elapsed()}]`);
  return tally;
}

async function main() {
  const cs = locateCache();
  if (cs.missing) {
    console.log(`SKIP: ${cs.missing}`);
    process.exit(2);
  }
  mkdirSync(OUT, { recursive: true });
  for (const f of readdirSync(OUT).filter((n) => /\.(png|log|json)$/.test(n))) rmSync(join(OUT, f));
  npmCi(HERE);
  const scratch = mkdtempSync(join(tmpdir(), 'pi-vscode-e2e-'));
  // the agent dir of every pi-lsp the tiers start (inherited through code-server): never the
  // machine's ~/.pi/agent, whose templates and skills would leak into the tests
  process.env.PI_CODING_AGENT_DIR = join(scratch, 'pi-agent');
  let ext;
  try {
    ext = build(cs);
  } catch (err) {
    console.log(`build failed: ${err.message}`);
    for (const t of tiers) console.log(`tier ${t}: 0 passed, 1 failed, 0 skipped`);
    process.exit(1);
  }
  console.log(`built ${ext.vsix} [${elapsed()}]`);
  const results = [];
  if (tiers.includes('2')) results.push(...await tier2(cs, scratch, ext));
  if (tiers.includes('3')) results.push(await tier3(cs, scratch, ext));
  const failed = results.some((t) => t.failed > 0);
  for (const f of readdirSync(scratch).filter((n) => n.endsWith('.log'))) {
    cpSync(join(scratch, f), join(OUT, f));
  }
  if (keep || failed) console.log(`scratch kept: ${scratch}`);
  else rmSync(scratch, { recursive: true, force: true });
  console.log(`vscode e2e done in ${elapsed()}`);
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(err);
  process.exit(1);
});
