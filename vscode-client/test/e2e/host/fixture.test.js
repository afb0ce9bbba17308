// Plumbing check against the throwaway fixture extension: the extension under development is
// loaded into code-server's real extension host, activates, and its webview view opens.
'use strict';
const assert = require('assert');
const vscode = require('vscode');

describe('fixture extension (plumbing)', () => {
  it('activates in the real extension host and returns its API', async () => {
    const ext = vscode.extensions.getExtension('pi-lsp-tests.pi-e2e-fixture');
    assert.ok(ext, 'fixture extension is loaded');
    const api = await ext.activate();
    assert.strictEqual(api.hello(), 'hello from the fixture');
  });

  it('runs inside VS Code 1.139 with a workspace folder', () => {
    assert.match(vscode.version, /^1\.139\./);
    assert.ok(vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders.length === 1);
  });

  it('opens its webview view', async () => {
    await vscode.commands.executeCommand('piFixture.show');
  });
});
