// Tier 2: a code review (docs/review.md) in the real extension host. The workspace becomes a
// git repository with a seeded defect (the division of tests/support/review_repo.py); the
// scripted model reports it through report_finding; "pi: Review Changes" (pi.reviewChanges)
// puts it on the right line as a diagnostic with source "pi review" (the Problems panel's
// data), with its code actions, and the Review section (pi.findings) lists it.
'use strict';
const assert = require('assert');
const cp = require('child_process');
const fs = require('fs');
const vscode = require('vscode');
const { scriptedSession, wsPath, wsUri } = require('./lib/pi');

const BEFORE = 'def average(values):\n    if not values:\n        return 0.0\n    return sum(values) / len(values)\n';
const AFTER = 'def average(values):\n    total = 0\n    for v in values:\n        total += v\n    return total / len(values)\n';

function git(...args) {
  cp.execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.invalid', ...args], { cwd: wsPath() });
}

/** Resolve once `uri` has a diagnostic with source "pi review" (event-driven). */
function findingsOf(uri, timeoutMs = 30000) {
  const ours = () => vscode.languages.getDiagnostics(uri).filter((d) => d.source === 'pi review');
  return new Promise((resolve, reject) => {
    if (ours().length) return resolve(ours());
    const sub = vscode.languages.onDidChangeDiagnostics(() => {
      if (ours().length) { sub.dispose(); clearTimeout(timer); resolve(ours()); }
    });
    const timer = setTimeout(() => { sub.dispose(); reject(new Error(`no pi review diagnostics on ${uri.fsPath}`)); }, timeoutMs);
  });
}

describe('code review (extension host)', function () {
  let srv;

  scriptedSession((s) => ({ srv } = s));

  it('pi: Review Changes puts the findings on the right lines, with Fix with pi / Explain / Dismiss', async () => {
    fs.mkdirSync(wsPath('review'), { recursive: true });
    fs.writeFileSync(wsPath('review', 'calc.py'), BEFORE);
    if (!fs.existsSync(wsPath('.git'))) git('init', '-q');
    git('add', 'review/calc.py');
    git('commit', '-q', '-m', 'before', '--', 'review/calc.py');
    fs.writeFileSync(wsPath('review', 'calc.py'), AFTER);
    srv.tools([['report_finding', { path: 'review/calc.py', line: 5, severity: 'error', title: 'Division by zero', body: 'an empty list' }]]);
    srv.text('One finding.');
    await vscode.commands.executeCommand('pi.reviewChanges');
    const uri = wsUri('review', 'calc.py');
    const [d] = await findingsOf(uri);
    assert.strictEqual(d.range.start.line, 4);
    assert.strictEqual(d.range.start.character, 4);
    assert.strictEqual(d.message, 'Division by zero');
    assert.strictEqual(d.severity, vscode.DiagnosticSeverity.Error);
    assert.deepStrictEqual((d.relatedInformation || []).map((r) => r.message), ['an empty list']);
    const doc = await vscode.workspace.openTextDocument(uri);
    await vscode.window.showTextDocument(doc);
    const actions = await vscode.commands.executeCommand(
      'vscode.executeCodeActionProvider', uri, new vscode.Range(4, 4, 4, 4));
    const titles = (actions || []).map((x) => x.title);
    for (const t of ['Fix with pi: Division by zero', 'Explain: Division by zero', 'Dismiss: Division by zero']) {
      assert.ok(titles.includes(t), titles.join(' | '));
    }
    assert.ok(!titles.includes('Fix with pi'), `the generic action is not offered twice: ${titles.join(' | ')}`);
    const dismiss = actions.find((x) => x.title.startsWith('Dismiss'));
    await vscode.commands.executeCommand(dismiss.command.command, ...dismiss.command.arguments);
    await new Promise((resolve) => {
      const gone = () => !vscode.languages.getDiagnostics(uri).some((x) => x.source === 'pi review');
      if (gone()) return resolve();
      const sub = vscode.languages.onDidChangeDiagnostics(() => { if (gone()) { sub.dispose(); resolve(); } });
    });
    await vscode.commands.executeCommand('workbench.action.revertAndCloseActiveEditor').then(undefined, () => {});
  });
});
