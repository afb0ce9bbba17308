// What the extension-host specs share: the run's configuration, the extension's test API,
// waiting on its view model (event-driven: re-checked on every onDidChange), the scripted
// model server. Server and extension ship together: a missing server feature is a failure.
'use strict';
const fs = require('fs');
const path = require('path');
const vscode = require('vscode');
const { startScripted } = require('./openai');

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

function wsPath(...parts) { return path.join(CFG.PI_E2E_WORKSPACE, ...parts); }
function wsUri(...parts) { return vscode.Uri.file(wsPath(...parts)); }

/** Texts of the user-role messages a model request carried (string or content blocks). */
function userTexts(messages) {
  return messages.filter((m) => m.role === 'user').map((m) => (typeof m.content === 'string'
    ? m.content : m.content.map((c) => c.text || '').join('')));
}

module.exports = { CFG, api, waitFor, model, wsPath, wsUri, userTexts };
