// Tier 2: edits land in the real editor through workspace/applyEdit, are saved through
// pi/saveDocuments, are one undo step, and can be reviewed (§9): a hunk undone from its
// CodeLens is reported to the model; a checkpoint restore reverts the agent's changes.
'use strict';
const assert = require('assert');
const fs = require('fs');
const vscode = require('vscode');
const { scriptedSession, waitFor, wsPath, userTexts, freshFile, editCall, ORIGINAL, findLens, runLens } = require('./lib/pi');
const vm = require('./lib/vm');

describe('edits in the real editor (extension host)', function () {
  let a;
  let srv;

  scriptedSession((s) => ({ a, srv } = s), { closeEditor: true });

  it('applies an edit in the buffer, saves it to disk, as one undo step', async () => {
    const doc = await freshFile('e1.py');
    srv.tools([editCall('e1.py', '"Hello, "', '"Hi, "'), editCall('e1.py', 'a + b', 'b + a')]);
    srv.text('Done.');
    await a.prompt('Make the greeting shorter and swap the sum.');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Done.', 'the run to finish');
    assert.ok(doc.getText().includes('"Hi, "') && doc.getText().includes('b + a'), doc.getText());
    assert.strictEqual(doc.isDirty, false, 'saved through pi/saveDocuments');
    assert.strictEqual(fs.readFileSync(wsPath('src', 'e1.py'), 'utf8'), doc.getText());
    const cards = vm.toolCards(a.state()).filter((c) => vm.toolName(c) === 'edit');
    assert.strictEqual(cards.length, 2);
    assert.ok(cards.every((c) => vm.toolStatus(c) === 'done'), JSON.stringify(cards));
    // each tool call is one undo step: one undo reverts the second edit only
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
    assert.ok(doc.getText().includes('"Hi, "') && doc.getText().includes('a + b'), doc.getText());
    await vscode.commands.executeCommand('undo');
    assert.strictEqual(doc.getText(), ORIGINAL);
  });

  it('a hunk undone from its CodeLens is reverted and reported to the model', async () => {
    const doc = await freshFile('e2.py');
    srv.tools([editCall('e2.py', '"Hello, "', '"Howdy, "')]);
    srv.text('Changed it.');
    await a.prompt('Change the greeting.');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Changed it.', 'the run to finish');
    await waitFor(a, (s) => vm.pendingHunks(s, doc.uri).length === 1, 'one pending hunk');
    await runLens(doc.uri, /undo/i, 1);
    await waitFor(a, (s) => vm.pendingHunks(s, doc.uri).length === 0, 'the hunk to leave review');
    assert.strictEqual(doc.getText(), ORIGINAL);
    // the model learns it before its next call
    srv.text('Understood.');
    await a.prompt('Go on.');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Understood.', 'the second run');
    const last = srv.messages(srv.requests.length - 1);
    const notes = userTexts(last).join('\n');
    assert.match(notes, /Howdy/, `the model was told about the undone hunk:\n${notes}`);
  });

  it('undo from the CodeLens, then a prompt at once: the model is told with that prompt', async () => {
    const doc = await freshFile('e4.py');
    srv.tools([editCall('e4.py', '"Hello, "', '"Howdy, "')]);
    srv.text('Changed it.');
    await a.prompt('Change the greeting.');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Changed it.', 'the run to finish');
    await waitFor(a, (s) => vm.pendingHunks(s, doc.uri).length === 1, 'one pending hunk');
    const before = srv.requests.length;
    srv.text('Yes: you undid the greeting change.');
    // Undo, then the prompt at once: the decision is on the wire but still being applied
    // (its workspace/applyEdit not yet answered) when the prompt reaches the server. One turn
    // of the event loop between them stands for the user's next action.
    const lens = await findLens(doc.uri, /undo/i, 1);
    const undone = vscode.commands.executeCommand(lens.command.command, ...(lens.command.arguments || []));
    await new Promise((r) => setImmediate(r));
    await a.prompt('Did I change anything?');
    await undone;
    await waitFor(a, (s) => !vm.isStreaming(s) && /you undid/.test(vm.lastAssistantText(s) || ''), 'the second run');
    assert.strictEqual(srv.requests.length, before + 1, 'one model call');
    const sent = srv.messages(before);
    const notes = userTexts(sent).filter((t) => /undid/.test(t));
    assert.strictEqual(notes.length, 1, `the first call of that run carries the note once:\n${JSON.stringify(sent)}`);
    assert.match(notes[0], /Howdy/);
    assert.strictEqual(doc.getText(), ORIGINAL);
    // in the transcript: the user's words as typed, the note as a "pi was told" marker
    assert.ok(vm.userTexts(a.state()).includes('Did I change anything?'), JSON.stringify(vm.userTexts(a.state())));
    assert.ok(vm.userTexts(a.state()).every((t) => !/undid/.test(t)), 'no note inside a user message');
    const told = vm.toldNotices(a.state());
    assert.strictEqual(told.length, 1);
    assert.match(told[0].text, /^pi was told: you undid src\/e4\.py line 2$/);
  });

  it('the editor\'s own undo (Ctrl+Z) of the agent\'s change counts as an undo', async () => {
    const doc = await freshFile('e5.py');
    srv.tools([editCall('e5.py', 'a + b', 'a * b')]);
    srv.text('Multiplying.');
    await a.prompt('Multiply instead.');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Multiplying.', 'the run to finish');
    await waitFor(a, (s) => vm.pendingHunks(s, doc.uri).length === 1, 'one pending hunk');
    await vscode.window.showTextDocument(doc);
    await vscode.commands.executeCommand('undo');
    assert.strictEqual(doc.getText(), ORIGINAL);
    await waitFor(a, (s) => vm.pendingHunks(s, doc.uri).length === 0, 'the hunk to leave review');
    const before = srv.requests.length;
    srv.text('Noted.');
    await a.prompt('Go on.');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Noted.', 'the second run');
    const notes = userTexts(srv.messages(before)).filter((t) => /undid/.test(t));
    assert.strictEqual(notes.length, 1, 'the model was told');
    assert.match(notes[0], /a \* b/);
  });

  it('"Revert this change" on an edit card reverts that tool call, and its notice undoes it', async () => {
    const doc = await freshFile('e6.py');
    srv.tools([editCall('e6.py', '"Hello, "', '"Hey, "')]);
    srv.tools([editCall('e6.py', 'a + b', 'a - b')]);
    srv.text('Two changes.');
    await a.prompt('Two changes, please.');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Two changes.', 'the run to finish');
    const both = ORIGINAL.replace('"Hello, "', '"Hey, "').replace('a + b', 'a - b');
    assert.strictEqual(doc.getText(), both);
    const first = vm.toolCards(a.state()).filter((c) => vm.toolName(c) === 'edit')[0];
    await vm.revertToolCall(a, first);
    await waitFor(a, () => doc.getText() === ORIGINAL.replace('a + b', 'a - b'), 'the first change reverted, the second kept');
    const notice = await waitFor(a, (s) => vm.items(s).find((i) => i.kind === 'notice' && i.restoreId), 'an undoable notice');
    assert.match(notice.text, /reverted this change/);
    await a.webviewMessage({ type: 'undoRestore', restoreId: notice.restoreId });
    await waitFor(a, () => doc.getText() === both, 'the revert undone');
  });

  it('restoring a checkpoint\'s code reverts the agent\'s edit after it', async () => {
    const doc = await freshFile('e3.py');
    srv.tools([editCall('e3.py', 'a + b', 'a - b')]);
    srv.text('Subtracting now.');
    await a.prompt('Subtract instead.');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Subtracting now.', 'the run');
    assert.ok(doc.getText().includes('a - b'));
    const cp = await waitFor(a, (s) => vm.checkpoints(s).find((c) => /Subtract instead/.test(vm.text(c))),
      'the checkpoint of the prompt');
    await vm.restore(a, cp, 'code');
    await waitFor(a, () => doc.getText() === ORIGINAL, 'the code to be restored');
    assert.strictEqual(doc.getText(), ORIGINAL);
  });

  it('the diagnostics of an edited file are forwarded (pi/diagnostics) and reach the model', async () => {
    // a language server of our own (a diagnostic collection) reports an error on the line the
    // agent changed, as soon as the buffer holds the change: the extension forwards it and
    // the server appends it to the edit's result (docs/protocol.md §9.4)
    const doc = await freshFile('d1.py');
    const collection = vscode.languages.createDiagnosticCollection('pi-e2e-lint');
    const sub = vscode.workspace.onDidChangeTextDocument((e) => {
      if (e.document.uri.toString() !== doc.uri.toString() || !e.document.getText().includes('"Hey, "')) return;
      const range = new vscode.Range(1, 4, 1, 10);
      collection.set(doc.uri, [new vscode.Diagnostic(range, 'e2e-lint: greeting too short', vscode.DiagnosticSeverity.Error)]);
    });
    try {
      srv.tools([editCall('d1.py', '"Hello, "', '"Hey, "')]);
      srv.text('Edited.');
      await a.prompt('Shorten the greeting.');
      await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Edited.', 'the run to finish');
    } finally {
      sub.dispose();
      collection.dispose();
    }
    const results = srv.messages(1).filter((m) => m.role === 'tool').map((m) => JSON.stringify(m.content));
    assert.ok(results.some((r) => r.includes('e2e-lint: greeting too short')),
      `the edit's result carries the forwarded diagnostic:\n${results.join('\n')}`);
  });
});
