// src/lsp/toProtocol.ts: VS Code's provider results → LSP JSON (pi/lspQuery), without VS Code.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import * as lsp from '../../src/lsp/toProtocol';

const uri = (s: string) => ({ toString: () => s });
const r = (l1: number, c1: number, l2: number, c2: number) => ({
  start: { line: l1, character: c1 },
  end: { line: l2, character: c2 },
});

test('SymbolKind: VS Code counts from 0 (File = 0), LSP from 1 (File = 1)', () => {
  assert.equal(lsp.symbolKind(0), 1); // File
  assert.equal(lsp.symbolKind(4), 5); // Class
  assert.equal(lsp.symbolKind(11), 12); // Function
});

test('document symbols keep their tree and their selection range', () => {
  const tree = lsp.symbols([
    {
      name: 'User',
      kind: 4,
      range: r(0, 0, 9, 0),
      selectionRange: r(1, 6, 1, 10),
      children: [{ name: 'save', kind: 5, range: r(2, 4, 3, 0), selectionRange: r(2, 8, 2, 12) }],
    },
  ]);
  assert.deepEqual(tree, [
    {
      name: 'User',
      kind: 5,
      range: r(0, 0, 9, 0),
      selectionRange: r(1, 6, 1, 10),
      children: [{ name: 'save', kind: 6, range: r(2, 4, 3, 0), selectionRange: r(2, 8, 2, 12), children: [] }],
    },
  ]);
});

test('symbol information is flat with its container', () => {
  const flat = lsp.symbols([{ name: 'f', kind: 11, containerName: 'm', location: { uri: uri('file:///a.py'), range: r(3, 4, 3, 5) } }]);
  assert.deepEqual(flat, [{ name: 'f', kind: 12, containerName: 'm', location: { uri: 'file:///a.py', range: r(3, 4, 3, 5) } }]);
});

test('locations and location links', () => {
  assert.deepEqual(lsp.locations([{ uri: uri('file:///a.py'), range: r(1, 2, 1, 3) }]), [{ uri: 'file:///a.py', range: r(1, 2, 1, 3) }]);
  assert.deepEqual(lsp.locations([{ targetUri: uri('file:///b.py'), targetRange: r(0, 0, 5, 0), targetSelectionRange: r(1, 4, 1, 8) }]), [
    { targetUri: 'file:///b.py', targetRange: r(0, 0, 5, 0), targetSelectionRange: r(1, 4, 1, 8) },
  ]);
  assert.equal(lsp.locations(undefined), null);
});

test('hovers are one markdown text', () => {
  const h = lsp.hover([{ contents: [{ value: '**f**' }, 'plain', { language: 'python', value: 'def f()' }] }]);
  assert.deepEqual(h, { contents: { kind: 'markdown', value: '**f**\n\n---\n\nplain\n\n---\n\n```python\ndef f()\n```' } });
  assert.equal(lsp.hover([]), null);
});

test('a rename edit is data: changes per document', () => {
  const edit = lsp.workspaceEdit([[uri('file:///a.py'), [{ range: r(0, 4, 0, 7), newText: 'new' }]]]);
  assert.deepEqual(edit, { changes: { 'file:///a.py': [{ range: r(0, 4, 0, 7), newText: 'new' }] } });
});

test('diagnostic severity: VS Code Error = 0, LSP Error = 1', () => {
  const report = lsp.diagnostics([{ range: r(0, 0, 0, 1), message: 'bad', severity: 0, source: 'x', code: { value: 'E1' } }]);
  assert.deepEqual(report, { kind: 'full', items: [{ range: r(0, 0, 0, 1), message: 'bad', severity: 1, source: 'x', code: 'E1' }] });
});

test('call hierarchy items carry the id of VS Code\'s item', () => {
  const item = lsp.callItem({ name: 'f', kind: 11, uri: uri('file:///a.py'), range: r(0, 0, 2, 0), selectionRange: r(0, 4, 0, 5) }, 'item-3');
  assert.deepEqual(item, { name: 'f', kind: 12, uri: 'file:///a.py', range: r(0, 0, 2, 0), selectionRange: r(0, 4, 0, 5), data: { piItem: 'item-3' } });
});
