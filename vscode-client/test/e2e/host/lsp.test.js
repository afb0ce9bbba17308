// Tier 2: the agent's `lsp` tool answered by VS Code's own providers (pi/lspQuery): this test
// registers deterministic definition / reference / rename providers in the extension host (no
// Python extension needed). References reach the model as path:line:col lines; the rename's
// WorkspaceEdit comes back to pi-lsp as data and arrives as ONE workspace/applyEdit from it:
// both files changed once, saved, and in review.
'use strict';
const assert = require('assert');
const vscode = require('vscode');
const { scriptedSession, waitFor, wsUri, freshFile } = require('./lib/pi');
const vm = require('./lib/vm');

const SELECTOR = { scheme: 'file', pattern: '**/src/lsp*.py' };

describe('the lsp tool through VS Code providers (extension host)', function () {
  let a;
  let srv;
  const registered = [];
  let renameCalls = 0;

  scriptedSession((s) => ({ a, srv } = s), { closeEditor: true });

  before(() => {
    const at = (name, line, c0, c1) => new vscode.Location(wsUri('src', name), new vscode.Range(line, c0, line, c1));
    registered.push(
      vscode.languages.registerReferenceProvider(SELECTOR, {
        provideReferences: () => [at('lsp1.py', 0, 4, 9), at('lsp2.py', 0, 4, 9)],
      }),
      vscode.languages.registerDefinitionProvider(SELECTOR, { provideDefinition: () => at('lsp1.py', 0, 4, 9) }),
      vscode.languages.registerRenameProvider(SELECTOR, {
        provideRenameEdits: (_doc, _pos, newName) => {
          renameCalls += 1;
          const edit = new vscode.WorkspaceEdit();
          edit.replace(wsUri('src', 'lsp1.py'), new vscode.Range(0, 4, 0, 9), newName);
          edit.replace(wsUri('src', 'lsp2.py'), new vscode.Range(0, 4, 0, 9), newName);
          return edit;
        },
      }),
    );
  });
  after(() => registered.forEach((d) => d.dispose()));

  it('references come from the editor, rendered for the model', async () => {
    await freshFile('lsp1.py');
    await freshFile('lsp2.py');
    srv.tools([['lsp', { operation: 'references', path: 'src/lsp1.py', line: 1, symbol: 'greet' }]]);
    srv.text('Two places.');
    await a.prompt('Who uses greet?');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Two places.', 'the run to finish');
    const sent = JSON.stringify(srv.messages(srv.requests.length - 1));
    assert.ok(sent.includes('src/lsp1.py:1:5  def greet(name):'), sent);
    assert.ok(sent.includes('src/lsp2.py:1:5  def greet(name):'), sent);
  });

  it('a rename arrives as one edit from pi-lsp, saved and in review', async () => {
    const d1 = await freshFile('lsp1.py');
    const d2 = await freshFile('lsp2.py');
    renameCalls = 0;
    srv.tools([['lsp', { operation: 'rename', path: 'src/lsp1.py', line: 1, symbol: 'greet', newName: 'hello' }]]);
    srv.text('Renamed.');
    await a.prompt('Rename greet to hello.');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Renamed.', 'the run to finish');
    assert.strictEqual(renameCalls, 1);
    for (const doc of [d1, d2]) {
      assert.ok(doc.getText().startsWith('def hello(name):'), doc.getText());
      assert.strictEqual(doc.getText().split('hello').length - 1, 1, 'applied once, by pi-lsp');
      assert.strictEqual(doc.isDirty, false, 'saved through pi/saveDocuments');
    }
    await waitFor(a, (s) => vm.pendingHunks(s, d1.uri).length === 1 && vm.pendingHunks(s, d2.uri).length === 1, 'a hunk in each file');
    const card = vm.toolCards(a.state()).find((c) => vm.toolName(c) === 'lsp' && vm.toolStatus(c) === 'done');
    assert.ok(card, 'the lsp card is done');
  });
});
