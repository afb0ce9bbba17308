// Tier 2: every panel and editor gesture reaches the server and changes what the user sees.
// Each test goes through the gesture's own handler — the webview message the panel's button
// posts (api.webviewMessage: same validation and handler), the command a CodeLens or a
// keybinding runs — and fails when that handler does nothing (checked by removing each one).
'use strict';
const assert = require('assert');
const vscode = require('vscode');
const { gate } = require('./lib/openai');
const { CFG, scriptedSession, waitFor, freshFile, editCall, runLens, ORIGINAL, userTexts } = require('./lib/pi');
const vm = require('./lib/vm');

const queueTexts = (s, kind) => ((s.queue || {})[kind] || []).map((q) => q.text);
const lastUserText = (srv) => userTexts(srv.messages(srv.requests.length - 1)).slice(-1)[0];

/** The keybinding the extension contributes for `command`. */
function binding(command) {
  const ext = vscode.extensions.getExtension(CFG.PI_E2E_EXTENSION_ID);
  return ((ext.packageJSON.contributes || {}).keybindings || []).find((k) => k.command === command);
}

/** Put the cursor on `line` of `doc` in the active editor. */
async function cursorAt(doc, line) {
  const ed = await vscode.window.showTextDocument(doc, { preview: false });
  ed.selection = new vscode.Selection(line, 0, line, 0);
  return ed;
}

describe('panel and editor gestures (extension host)', function () {
  let a;
  let srv;

  scriptedSession((s) => ({ a, srv } = s), { closeEditor: true });

  /** A run held open at a gate after part of its answer, with `queued` follow-ups queued;
   * `next` answers what the run does after (a follow-up is the run's next turn). */
  async function runWithQueue(queued, next) {
    const g = gate();
    srv.text('Working on it, slowly.', { pieces: 4, gate: g, gateAfter: 2 });
    for (const t of next) srv.text(t);
    await a.prompt('Start.');
    await g.reached;
    for (const t of queued) assert.strictEqual((await a.prompt(t, 'followUp')).delivered, 'followUp');
    await waitFor(a, (s) => queueTexts(s, 'followUp').length === queued.length, 'the follow-ups in the queue');
    return g;
  }

  it('queue: Edit changes the queued text the model gets', async () => {
    const g = await runWithQueue(['fix the tets'], ['Follow-up answered.']);
    const [item] = a.state().queue.followUp;
    await a.webviewMessage({ type: 'queue', op: 'edit', id: item.id, text: 'fix the tests' });
    await waitFor(a, (s) => queueTexts(s, 'followUp')[0] === 'fix the tests', 'the edited text in the queue');
    g.open();
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Follow-up answered.', 'the follow-up run');
    assert.strictEqual(lastUserText(srv), 'fix the tests');
  });

  it('queue: Delete removes the message, the model never gets it', async () => {
    const g = await runWithQueue(['keep me', 'drop me'], ['Only the kept one.']);
    const drop = a.state().queue.followUp.find((q) => q.text === 'drop me');
    await a.webviewMessage({ type: 'queue', op: 'remove', id: drop.id });
    await waitFor(a, (s) => queueTexts(s, 'followUp').join('|') === 'keep me', 'the queue without the deleted message');
    g.open();
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Only the kept one.', 'the follow-up run');
    const sent = srv.requests.map((_, i) => userTexts(srv.messages(i)).join('\n')).join('\n');
    assert.ok(!sent.includes('drop me'), sent);
    assert.ok(sent.includes('keep me'), sent);
  });

  it('queue: Send now turns a follow-up into steering for the running turn', async () => {
    const g = await runWithQueue(['look at the tests too'], ['Steered answer.']);
    const [item] = a.state().queue.followUp;
    await a.webviewMessage({ type: 'queue', op: 'promote', id: item.id });
    await waitFor(a, (s) => queueTexts(s, 'followUp').length === 0
      && (queueTexts(s, 'steering').includes('look at the tests too')
        || vm.userItems(s).some((u) => vm.text(u) === 'look at the tests too')), 'the message moved to steering');
    g.open();
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Steered answer.', 'the steered turn');
    // steering is delivered within the same run (turn 2), not as a new run after it
    const steer = vm.userItems(a.state()).find((u) => vm.text(u) === 'look at the tests too');
    assert.strictEqual(vm.deliveredTurn(steer), 2, JSON.stringify(steer));
    assert.strictEqual(srv.requests.length, 2);
    assert.strictEqual(lastUserText(srv), 'look at the tests too');
  });

  it('review: Keep from the CodeLens keeps the change and ends its review', async () => {
    const doc = await freshFile('g1.py');
    srv.tools([editCall('g1.py', '"Hello, "', '"Hey, "')]);
    srv.text('Changed.');
    await a.prompt('Change the greeting.');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.pendingHunks(s, doc.uri).length === 1, 'one pending hunk');
    await runLens(doc.uri, /^Keep$/);
    await waitFor(a, (s) => vm.pendingHunks(s, doc.uri).length === 0, 'the hunk to leave review');
    assert.ok(doc.getText().includes('"Hey, "'), doc.getText());
  });

  it('review keys: Alt+F5 goes to the next change, Ctrl+Alt+Y keeps it, Ctrl+Alt+N undoes it', async () => {
    for (const [command, key] of [['pi.review.next', 'alt+f5'], ['pi.review.keep', 'ctrl+alt+y'], ['pi.review.undo', 'ctrl+alt+n']]) {
      const b = binding(command);
      assert.ok(b && b.key === key && /pi\.hasPendingHunks/.test(b.when || ''), `${command}: ${JSON.stringify(b)}`);
    }
    const doc = await freshFile('g2.py');
    srv.tools([editCall('g2.py', '"Hello, "', '"Hey, "'), editCall('g2.py', 'a + b', 'a * b')]);
    srv.text('Two changes.');
    await a.prompt('Change both.');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.pendingHunks(s, doc.uri).length === 2, 'two pending hunks');
    await cursorAt(doc, 0);
    // Alt+F5: from the top, the first change (line 1), then the second (line 5)
    await vscode.commands.executeCommand('pi.review.next');
    assert.strictEqual(vscode.window.activeTextEditor.selection.active.line, 1);
    await vscode.commands.executeCommand('pi.review.next');
    assert.strictEqual(vscode.window.activeTextEditor.selection.active.line, 5);
    // Ctrl+Alt+N on the second: undone in the buffer
    await vscode.commands.executeCommand('pi.review.undo');
    await waitFor(a, (s) => vm.pendingHunks(s, doc.uri).length === 1 && doc.getText().includes('a + b'), 'the second hunk undone');
    // Ctrl+Alt+Y on the first: kept
    await cursorAt(doc, 1);
    await vscode.commands.executeCommand('pi.review.keep');
    await waitFor(a, (s) => vm.pendingHunks(s, doc.uri).length === 0, 'the first hunk kept');
    assert.ok(doc.getText().includes('"Hey, "') && doc.getText().includes('a + b'), doc.getText());
  });

  it('review: a hunk is decided while the run still streams', async () => {
    const doc = await freshFile('g3.py');
    const g = gate();
    srv.tools([editCall('g3.py', 'a + b', 'a - b')]);
    srv.text('Still explaining the change, at length.', { pieces: 4, gate: g, gateAfter: 2 });
    await a.prompt('Subtract, then explain.');
    await g.reached;
    await waitFor(a, (s) => vm.isStreaming(s) && vm.pendingHunks(s, doc.uri).length === 1, 'a pending hunk during the run');
    await cursorAt(doc, 5);
    await vscode.commands.executeCommand('pi.review.undo');
    await waitFor(a, (s) => vm.pendingHunks(s, doc.uri).length === 0 && doc.getText() === ORIGINAL, 'the hunk undone mid-run');
    assert.ok(vm.isStreaming(a.state()), 'decided while the run was still streaming');
    g.open();
    await waitFor(a, (s) => !vm.isStreaming(s), 'the run to end');
    assert.strictEqual(doc.getText(), ORIGINAL);
  });

  /** One run with an edit: its checkpoint and the document. */
  async function editedRun(name, ask) {
    const doc = await freshFile(name);
    srv.tools([editCall(name, 'a + b', 'a - b')]);
    srv.text('Subtracting now.');
    await a.prompt(ask);
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Subtracting now.', 'the run');
    const cp = await waitFor(a, (s) => vm.checkpoints(s).find((c) => vm.text(c).includes(ask)), 'its checkpoint');
    return { doc, cp };
  }

  it('restore: conversation only takes the chat back and leaves the code', async () => {
    const { doc, cp } = await editedRun('g4.py', 'Subtract please.');
    await vm.restore(a, cp, 'conversation');
    await waitFor(a, (s) => !vm.userTexts(s).includes('Subtract please.'), 'the conversation before that message');
    assert.ok(doc.getText().includes('a - b'), 'the code stays');
  });

  it('restore: both takes code and chat back; Undo restore re-applies the code', async () => {
    const { doc, cp } = await editedRun('g5.py', 'Subtract, both.');
    await vm.restore(a, cp, 'both');
    await waitFor(a, (s) => !vm.userTexts(s).includes('Subtract, both.') && doc.getText() === ORIGINAL,
      'code and conversation restored');
    const notice = await waitFor(a, (s) => vm.items(s).find((i) => i.kind === 'notice' && i.topic === 'restore' && i.restoreId),
      'the restore notice with its Undo');
    await a.webviewMessage({ type: 'undoRestore', restoreId: notice.restoreId });
    await waitFor(a, () => doc.getText().includes('a - b'), 'the code re-applied');
  });

  it('model picker: the picked model is the session\'s and the next request uses it', async () => {
    srv.text('First.');
    await a.prompt('Hi.');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'First.', 'the first run');
    await a.webviewMessage({ type: 'setModel', provider: 'openai-compatible', model: 'picked-model' });
    await waitFor(a, (s) => s.model && s.model.id === 'picked-model', 'the picked model in the panel');
    srv.text('Second.');
    await a.prompt('Again.');
    await waitFor(a, (s) => !vm.isStreaming(s) && vm.lastAssistantText(s) === 'Second.', 'the second run');
    assert.strictEqual(srv.requests[srv.requests.length - 1].body.model, 'picked-model');
  });
});
