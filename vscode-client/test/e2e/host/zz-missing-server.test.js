// Tier 2, run last (it restarts the server): a `pi.server.command` that does not exist gives
// the missing-server error with the fix, and fixing the setting brings the server back.
'use strict';
const assert = require('assert');
const vscode = require('vscode');
const { api, waitFor, CFG } = require('./lib/pi');
const vm = require('./lib/vm');

describe('server discovery errors (extension host)', function () {
  let a;
  before(async () => { a = await api(); });

  after(async () => {
    await vscode.workspace.getConfiguration('pi').update('server.command', CFG.PI_E2E_SERVER,
      vscode.ConfigurationTarget.Workspace);
  });

  it('a missing server says how to install it, and Retry recovers', async () => {
    await vscode.workspace.getConfiguration('pi').update('server.command', '/nonexistent/bin/pi-lsp',
      vscode.ConfigurationTarget.Workspace);
    await vm.restartServer(a);
    const server = await waitFor(a, (s) => (vm.serverStatus(s) === 'missing' ? vm.server(s) : null),
      'the missing-server state');
    assert.match(server.message, /pip install/);
    assert.match(server.message, /\/nonexistent\/bin\/pi-lsp/);
    await vscode.workspace.getConfiguration('pi').update('server.command', CFG.PI_E2E_SERVER,
      vscode.ConfigurationTarget.Workspace);
    await vm.restartServer(a);
    await waitFor(a, (s) => vm.serverStatus(s) === 'running', 'the server to run again');
  });
});
