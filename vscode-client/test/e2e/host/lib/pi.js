// What the extension-host specs share: the run's configuration, the extension's test API,
// waiting on its view model (event-driven: re-checked on every onDidChange), the scripted
// model server and the mocha hooks around it, a fresh workspace file to edit and its CodeLenses.
// Server and extension ship together: a missing server feature is a failure.
'use strict';
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { startScripted } = require('./openai');
const vm = require('./vm');

function config() {
  const env = process.env;
  if (env.PI_E2E_WORKSPACE) return env;
  // extensionEnvironment did not reach this process: fall back to the runner's file.
  return JSON.parse(fs.readFileSync(path.join(__dirname, '..', '..', 'test-output', 'run-config.json'), 'utf8'));
}

const CFG = config();

let apiPromise;
/** The object the extension's activate() returned, once its language client is ready. */
function api() {
  if (!apiPromise) {
    apiPromise = (async () => {
      const ext = vscode.extensions.getExtension(CFG.PI_E2E_EXTENSION_ID);
      if (!ext) throw new Error(`extension ${CFG.PI_E2E_EXTENSION_ID} is not loaded`);
      const a = await ext.activate();
      await a.ready;
      return a;
    })();
  }
  return apiPromise;
}

/**
 * Resolve with predicate(state) once it is truthy, re-checked on each view-model change
 * (and on every document change or save). The timeout only guards against a hang; the message shows the
 * last state, so a failure says what the panel showed instead.
 */
function waitFor(a, predicate, what, timeoutMs = 20000) {
  return new Promise((resolve, reject) => {
    const subs = [];
    let timer;
    const done = (fn, v) => { subs.forEach((d) => d.dispose()); clearTimeout(timer); fn(v); };
    const test = () => {
      let v;
      try { v = predicate(a.state()); } catch (err) { return done(reject, err); }
      if (v) done(resolve, v);
      return v;
    };
    if (test()) return;
    subs.push(a.onDidChange(() => test()));
    subs.push(vscode.workspace.onDidChangeTextDocument(() => test()));
    subs.push(vscode.workspace.onDidSaveTextDocument(() => test()));
    timer = setTimeout(() => done(reject, new Error(
      `timed out waiting for ${what}; view model:\n${JSON.stringify(a.state(), null, 1).slice(0, 4000)}`)), timeoutMs);
  });
}

/** The scripted model on the port the workspace settings name (one per suite). */
async function model() {
  const srv = await startScripted(Number(CFG.PI_E2E_MODEL_PORT));
  return srv;
}

/**
 * The mocha hooks a panel spec shares (call inside its describe): one scripted model for the
 * suite, the extension's API, and before each test a fresh script and a new session.
 * `bind` receives {a, srv} once both exist. `closeEditor`: after each test the active editor
 * is reverted and closed (specs that open workspace files).
 */
function scriptedSession(bind, { closeEditor = false } = {}) {
  let a;
  let srv;
  before(async () => {
    srv = await model();
    a = await api();
    bind({ a, srv });
  });
  after(async () => { if (srv) await srv.close(); });
  beforeEach(async () => {
    srv.reset();
    await vm.newSession(a);
  });
  if (closeEditor) {
    afterEach(async () => {
      await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor').then(undefined, () => {});
    });
  }
}

const ORIGINAL = 'def greet(name):\n    return "Hello, " + name\n\n\ndef add(a, b):\n    return a + b\n';

/** A fresh src/`name` with ORIGINAL, opened in an editor (so `read`/`edit` see the buffer). */
async function freshFile(name) {
  fs.writeFileSync(wsPath('src', name), ORIGINAL);
  const doc = await vscode.workspace.openTextDocument(wsUri('src', name));
  await vscode.window.showTextDocument(doc, { preview: false });
  return doc;
}

/** A scripted `edit` tool call replacing `oldText` with `newText` in src/`name`. */
function editCall(name, oldText, newText) {
  return ['edit', { path: `src/${name}`, edits: [{ oldText, newText }] }];
}

/** The CodeLens whose title matches `title` on `line` (0-based) of `uri`. */
async function findLens(uri, title, line) {
  const lenses = await vscode.commands.executeCommand('vscode.executeCodeLensProvider', uri, 100);
  const lens = (lenses || []).find((l) => l.command && title.test(l.command.title)
    && (line === undefined || l.range.start.line === line));
  if (!lens) {
    throw new Error(`no CodeLens ${title} on ${uri.fsPath}: ${JSON.stringify((lenses || []).map((l) => [l.range.start.line, l.command && l.command.title]))}`);
  }
  return lens;
}

/** Execute the CodeLens whose title matches `title` on `line` (0-based) of `uri`. */
async function runLens(uri, title, line) {
  const lens = await findLens(uri, title, line);
  return vscode.commands.executeCommand(lens.command.command, ...(lens.command.arguments || []));
}

function wsPath(...parts) { return path.join(CFG.PI_E2E_WORKSPACE, ...parts); }
function wsUri(...parts) { return vscode.Uri.file(wsPath(...parts)); }

/** Texts of the user-role messages a model request carried (string or content blocks). */
function userTexts(messages) {
  return messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string'
    ? m.content : m.content.map((c) => c.text || '').join('')));
}

module.exports = {
  CFG, api, waitFor, model, scriptedSession, wsPath, wsUri, userTexts, ORIGINAL, freshFile, editCall, findLens, runLens,
};
