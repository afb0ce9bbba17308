// Tier 2, run last (it restarts the server): server discovery. A wrong `pi.server.command`
// names the setting; with no setting and no pi-lsp in the workspace's .venv or on PATH (the
// runner starts code-server with a PATH without pi-lsp) the error gives the pip command;
// Retry ("pi: Restart server") then finds `.venv/bin/pi-lsp`; fixing the setting recovers.
'use strict';
const assert = require('assert');
const fs = require('fs');
const vscode = require('vscode');
const { api, waitFor, CFG, wsPath } = require('./lib/pi');
const vm = require('./lib/vm');

const setCommand = (value) => vscode.workspace.getConfiguration('pi').update('server.command', value,
  vscode.ConfigurationTarget.Workspace);

describe('server discovery (extension host)', function () {
  let a;
  before(async () => { a = await api(); });

  after(async () => {
    fs.rmSync(wsPath('.venv'), { recursive: true, force: true });
    await setCommand(CFG.PI_E2E_SERVER);
    await vm.restartServer(a);
  });

  it('a pi.server.command that does not exist is reported with the setting', async () => {
    await setCommand('/nonexistent/bin/pi-lsp');
    await vm.restartServer(a);
    const server = await waitFor(a, (s) => (vm.serverStatus(s) === 'missing' ? vm.server(s) : null),
      'the missing-server state');
    assert.match(server.message, /\/nonexistent\/bin\/pi-lsp/);
    assert.match(server.message, /pi\.server\.command/);
  });

  it('no server anywhere: the error offers the one-click install and gives the pip install command', async () => {
    await setCommand(undefined);
    await vm.restartServer(a);
    const server = await waitFor(a, (s) => (vm.serverStatus(s) === 'missing' ? vm.server(s) : null),
      'the missing-server state');
    assert.match(server.message, /"Install server", into a private environment made with \S*python/);
    assert.match(server.message, /pip install pi-lsp/);
  });

  it('Retry finds pi-lsp in the workspace .venv', async () => {
    fs.mkdirSync(wsPath('.venv', 'bin'), { recursive: true });
    fs.symlinkSync(CFG.PI_E2E_SERVER, wsPath('.venv', 'bin', 'pi-lsp'));
    await vm.restartServer(a);
    const server = await waitFor(a, (s) => (vm.serverStatus(s) === 'running' ? vm.server(s) : null),
      'the server to run');
    assert.strictEqual(server.source, 'venv');
    assert.strictEqual(server.command, wsPath('.venv', 'bin', 'pi-lsp'));
    const res = await a.client.sendRequest('pi/sessions', {});
    assert.ok(Array.isArray(res.sessions));
  });
});
