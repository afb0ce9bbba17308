import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { withVscode } from './helpers';

// panel.ts imports vscode; read its CSP builder's output through a tiny shim instead.
test('the webview CSP allows nothing remote, inline or evaluated', async () => {
  const { contentSecurityPolicy } = await withVscode({}, () => import('../../src/panel'));
  const csp = contentSecurityPolicy('https://file+.vscode-resource.vscode-cdn.net', 'N0NCE');
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'nonce-N0NCE'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-(inline|eval)|\*|https?:\/\/(?!file\+)/);
  assert.match(csp, /connect-src 'none'/);
});

test('the bundled webview and extension contain no eval', () => {
  for (const f of ['dist/webview.js', 'dist/extension.js']) {
    const text = readFileSync(f, 'utf8'); // npm test builds first
    assert.doesNotMatch(text, /\beval\(|new Function\(/, f);
  }
});
