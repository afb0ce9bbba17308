import assert from 'node:assert/strict';
import { Driver, userMsg } from './helpers';
import { describe, test } from 'node:test';
import { discover, type DiscoveryInput } from '../../src/discovery';
import { mention, mentionQueryAt, selectionEndLine } from '../../src/mention';
import { clipOutput, HEAD_LINES, lineDiff, parsePatch, summariseTool, TAIL_LINES, toolTitle } from '../../src/model/tools';
import { parseWebviewMessage } from '../../src/protocol/messages';
import { apiKeyVariable, serverSettings } from '../../src/settings';
import { segments } from '../../src/webview/markdown';

describe('webview message validation', () => {
  test('well-formed messages pass', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'send', text: 'hi', deliverAs: 'steer' }), { type: 'send', text: 'hi', deliverAs: 'steer' });
    parseWebviewMessage({ type: 'permission', requestKey: 'r1', optionId: 'deny', reason: 'no' });
    parseWebviewMessage({ type: 'review', decisions: [{ hunkId: 'h', decision: 'undo', reason: 'ugly' }] });
    parseWebviewMessage({ type: 'queue', op: 'edit', id: 'q', text: 'x' });
    parseWebviewMessage({ type: 'restore', entryId: 'e', mode: 'both' });
    parseWebviewMessage({ type: 'send', text: '', images: [{ data: 'iVBORw0KGgo=', mimeType: 'image/png' }] });
    parseWebviewMessage({
      type: 'send',
      text: 'fix',
      attachments: [{ uri: 'file:///a', range: { start: { line: 0, character: 0 }, end: { line: 1, character: 0 } } }, { diagnostics: { uri: 'file:///a', items: [] } }],
    });
  });
  const bad: [unknown, RegExp][] = [
    [null, /not an object/],
    ['send', /not an object/],
    [{ type: 'eval', code: '1' }, /unknown type/],
    [{ type: 'send' }, /send.text must be a string/],
    [{ type: 'send', text: 1 }, /must be a string/],
    [{ type: 'send', text: 'x', deliverAs: 'now' }, /must be one of/],
    [{ type: 'send', text: 'x', extra: 1 }, /send.extra is not allowed/],
    [{ type: 'review', decisions: [{ hunkId: 'h', decision: 'maybe' }] }, /decision must be one of/],
    [{ type: 'review', decisions: 'all' }, /must be a list/],
    [{ type: 'restore', entryId: 'e', mode: 'everything' }, /mode must be one of/],
    [{ type: 'permission', requestKey: 'r', optionId: 5 }, /optionId must be a string/],
    [{ type: 'send', text: 'x', attachments: [{ evil: 1 }] }, /file or diagnostics attachment/],
    [{ type: 'openFile', uri: 'x'.repeat(5000) }, /too long/],
    [{ type: 'send', text: 'x', images: [{ data: 'x', mimeType: 'text/html' }] }, /mimeType must be one of/],
    [{ type: 'completeFiles', query: 'a', requestId: Number.NaN }, /must be a number/],
  ];
  for (const [msg, re] of bad) {
    test(`rejects ${JSON.stringify(msg)?.slice(0, 60)}`, () => {
      assert.throws(() => parseWebviewMessage(msg), re);
    });
  }
});

describe('settings mapping', () => {
  test('pi.* → the server section: unset and extension-only keys left out', () => {
    const cfg: Record<string, unknown> = {
      provider: 'openai-compatible',
      model: 'qwen',
      baseUrl: 'http://127.0.0.1:8080/v1',
      apiKeyEnv: '',
      thinkingLevel: 'low',
      permissions: { bash: 'ask' },
      edits: 'apply',
      steeringMode: 'all',
      followUpMode: 'one-at-a-time',
      contextWindow: 0,
      maxTokens: 4096,
      followEdits: false,
      'server.command': '/x/pi-lsp',
      'input.enterAction': 'steer',
    };
    assert.deepEqual(serverSettings((k) => cfg[k]), {
      provider: 'openai-compatible',
      model: 'qwen',
      baseUrl: 'http://127.0.0.1:8080/v1',
      thinkingLevel: 'low',
      permissions: { bash: 'ask' },
      edits: 'apply',
      steeringMode: 'all',
      followUpMode: 'one-at-a-time',
      maxTokens: 4096,
    });
  });
  test('empty permissions object is not sent; followEdits only when on', () => {
    const cfg: Record<string, unknown> = { permissions: {}, followEdits: true, models: [], readTimeout: 0 };
    assert.deepEqual(serverSettings((k) => cfg[k]), { followEdits: true });
    const cfg2: Record<string, unknown> = { models: [{ id: 'qwen' }], readTimeout: 30, contextWindow: 4096 };
    assert.deepEqual(serverSettings((k) => cfg2[k]), { models: [{ id: 'qwen' }], readTimeout: 30, contextWindow: 4096 });
  });
  test('context files, skills and prompt templates can be turned off', () => {
    const cfg: Record<string, unknown> = { contextFiles: false, skills: false, promptTemplates: true, 'server.mode': 'stdio' };
    assert.deepEqual(serverSettings((k) => cfg[k]), { contextFiles: false, skills: false, promptTemplates: true });
    const bad: Record<string, unknown> = { contextFiles: 'no' };
    assert.deepEqual(serverSettings((k) => bad[k]), {});
  });
  test('the key variable: apiKeyEnv if valid, else the provider default', () => {
    assert.equal(apiKeyVariable('openai', undefined), 'OPENAI_API_KEY');
    assert.equal(apiKeyVariable('google', undefined), 'GEMINI_API_KEY');
    assert.equal(apiKeyVariable('anthropic', 'MY_KEY'), 'MY_KEY');
    assert.equal(apiKeyVariable('anthropic', 'bad name; rm'), 'ANTHROPIC_API_KEY');
    assert.equal(apiKeyVariable('faux', undefined), undefined);
    assert.equal(apiKeyVariable(undefined, undefined), undefined);
  });
});

describe('server discovery', () => {
  const base = (over: Partial<DiscoveryInput>, exe: string[] = []): DiscoveryInput => ({
    setting: '',
    settingArgs: [],
    workspaceFolders: ['/ws'],
    pathEnv: '/usr/bin:/opt/bin',
    platform: 'linux',
    isExecutable: (f) => exe.includes(f),
    ...over,
  });
  test('the setting wins (path or a name on PATH)', () => {
    assert.deepEqual(discover(base({ setting: '/x/pi-lsp', settingArgs: ['--log-level', 'debug'] }, ['/x/pi-lsp', '/usr/bin/pi-lsp'])), {
      found: true,
      command: '/x/pi-lsp',
      args: ['--log-level', 'debug'],
      source: 'setting',
    });
    assert.equal((discover(base({ setting: 'pi-lsp' }, ['/opt/bin/pi-lsp'])) as { command: string }).command, '/opt/bin/pi-lsp');
  });
  test('a wrong setting is reported, not silently replaced', () => {
    const r = discover(base({ setting: '/nope/pi-lsp' }, ['/usr/bin/pi-lsp']));
    assert.equal(r.found, false);
    assert.match((r as { message: string }).message, /\/nope\/pi-lsp.*pi\.server\.command/);
  });
  test('then the Python extension interpreter, then .venv, then PATH', () => {
    const all = ['/env/bin/pi-lsp', '/ws/.venv/bin/pi-lsp', '/usr/bin/pi-lsp'];
    assert.equal((discover(base({ pythonInterpreter: '/env/bin/python' }, all)) as { source: string }).source, 'python');
    assert.equal((discover(base({ pythonInterpreter: '/other/bin/python' }, all)) as { source: string }).source, 'venv');
    assert.equal((discover(base({}, ['/usr/bin/pi-lsp'])) as { source: string }).source, 'path');
  });
  test('nothing found: the exact pip command for the workspace interpreter', () => {
    const r = discover(base({ pythonInterpreter: '/home/me/my env/bin/python' }));
    assert.equal(r.found, false);
    assert.equal((r as { installCommand: string }).installCommand, "'/home/me/my env/bin/python' -m pip install pi-lsp");
    assert.equal((discover(base({})) as { installCommand: string }).installCommand, 'python3 -m pip install pi-lsp');
  });
});

describe('mentions', () => {
  test('@path#L10-20 from 0-based lines', () => {
    assert.equal(mention('src/app.py', 9, 19), '@src/app.py#L10-20');
    assert.equal(mention('src/app.py', 4, 4), '@src/app.py#L5');
    assert.equal(mention('src\\win.py'), '@src/win.py');
  });
  test('a selection ending at column 0 does not include that line', () => {
    assert.equal(selectionEndLine(3, 6, 0), 5);
    assert.equal(selectionEndLine(3, 6, 2), 6);
    assert.equal(selectionEndLine(3, 3, 0), 3);
  });
  test('the @query under the cursor', () => {
    assert.deepEqual(mentionQueryAt('look at @src/ap', 15), { start: 8, query: 'src/ap' });
    assert.deepEqual(mentionQueryAt('@', 1), { start: 0, query: '' });
    assert.equal(mentionQueryAt('mail me@example.com', 19), null);
    assert.equal(mentionQueryAt('@done ', 6), null);
  });
});

describe('tool cards', () => {
  test('titles', () => {
    assert.equal(toolTitle('read', { path: 'a.py' }), 'read a.py');
    assert.equal(toolTitle('bash', { command: 'make\nmake test' }), 'bash make');
    assert.equal(toolTitle('grep', { pattern: 'TODO', path: 'src' }), 'grep TODO in src');
    assert.equal(toolTitle('ls', {}), 'ls');
  });
  test('long output keeps the head and the tail', () => {
    const text = Array.from({ length: 1000 }, (_, i) => `line ${i}`).join('\n');
    const c = clipOutput(text);
    assert.equal(c.outputLines, 1000);
    assert.equal(c.outputCut, 1000 - HEAD_LINES - TAIL_LINES);
    assert.ok(c.output.startsWith('line 0\n'));
    assert.ok(c.output.endsWith('line 999'));
    assert.match(c.output, /… 880 lines not shown …/);
  });
  test('summaries', () => {
    assert.equal(summariseTool('bash', {}, 'ok\nmore\nlines', false), 'ok (+2 lines)');
    assert.equal(summariseTool('bash', {}, '', false), 'no output');
    assert.equal(summariseTool('edit', {}, 'Could not find the text', true), 'Could not find the text');
    assert.equal(summariseTool('find', {}, 'a\nb', false), '2 entries');
  });
  test('line diff and unified patch', () => {
    assert.deepEqual(lineDiff(['a', 'b', 'c'], ['a', 'c', 'd']), [
      { op: ' ', text: 'a' },
      { op: '-', text: 'b' },
      { op: ' ', text: 'c' },
      { op: '+', text: 'd' },
    ]);
    assert.deepEqual(parsePatch('--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n a\n-b\n+c\n'), [
      { op: ' ', text: '@@ -1,2 +1,2 @@' },
      { op: ' ', text: 'a' },
      { op: '-', text: 'b' },
      { op: '+', text: 'c' },
    ]);
  });
});

describe('streaming Markdown segments', () => {
  test('split at blank lines outside code fences; joined they are the text', () => {
    const text = 'Para one.\n\n```py\nx = 1\n\ny = 2\n```\n\nPara two\n- item\n\n    indented';
    const segs = segments(text);
    assert.deepEqual(segs, ['Para one.', '```py\nx = 1\n\ny = 2\n```', 'Para two\n- item\n\n    indented']);
  });
  test('a growing text only changes its last segment', () => {
    const a = segments('One.\n\nTwo is gro');
    const b = segments('One.\n\nTwo is growing.');
    assert.equal(a[0], b[0]);
    assert.notEqual(a[1], b[1]);
  });
});

describe('slim events', () => {
  test('the bulky parts nobody renders are dropped before the reducer', async () => {
    const { slimEvent } = await import('../../src/model/tools');
    assert.deepEqual(slimEvent({ type: 'agent_end', messages: [{ role: 'user' }] }), { type: 'agent_end', messages: [] });
    assert.deepEqual(slimEvent({ type: 'turn_end', message: {}, toolResults: [{}] }), { type: 'turn_end' });
    const big = Array.from({ length: 20000 }, (_, i) => `line ${i}`).join('\n');
    const ev = slimEvent({ type: 'tool_execution_update', toolCallId: 'b', toolName: 'bash', partialResult: { content: [{ type: 'text', text: big }] } });
    const text = (ev.partialResult as { content: { text: string }[] }).content[0].text;
    assert.ok(text.length < 10000, `${text.length}`);
    assert.ok(text.startsWith('line 0\n') && text.endsWith('line 19999'));
    const small = { type: 'tool_execution_end', result: { content: [{ type: 'text', text: 'ok' }], details: { patch: 'x' } } };
    assert.equal(slimEvent(small), small, 'small events are passed through untouched');
    const img = slimEvent({ type: 'message_end', message: { role: 'user', content: [{ type: 'image', data: 'AAAA', mimeType: 'image/png' }] } });
    assert.equal((img.message as { content: { data: string }[] }).content[0].data, '');
  });
});

describe('review hunk navigation', () => {
  const hk = (id: string, line: number, lines = 1) => ({
    id,
    range: { start: { line, character: 0 }, end: { line: line + lines, character: 0 } },
    oldText: '',
    newText: 'x\n',
  });
  const files = [
    { uri: 'a', hunks: [hk('a1', 2), hk('a2', 10, 3)] },
    { uri: 'b', hunks: [hk('b1', 5)] },
  ];
  test('the hunk at the cursor, else the next one in the file', async () => {
    const { hunkAt } = await import('../../src/model/hunks');
    assert.equal(hunkAt(files, 'a', 11)?.hunk.id, 'a2');
    assert.equal(hunkAt(files, 'a', 5)?.hunk.id, 'a2');
    assert.equal(hunkAt(files, 'a', 50)?.hunk.id, 'a1');
    assert.equal(hunkAt(files, 'c', 0), undefined);
  });
  test('next and previous walk across files and wrap', async () => {
    const { stepHunk } = await import('../../src/model/hunks');
    const ids = (uri: string | undefined, line: number, dir: 1 | -1) => stepHunk(files, uri, line, dir)?.hunk.id;
    assert.equal(ids('a', 0, 1), 'a1');
    assert.equal(ids('a', 2, 1), 'a2');
    assert.equal(ids('a', 10, 1), 'b1');
    assert.equal(ids('b', 5, 1), 'a1');
    assert.equal(ids('b', 5, -1), 'a2');
    assert.equal(ids('a', 10, -1), 'a1');
    assert.equal(ids('a', 2, -1), 'b1');
    assert.equal(ids(undefined, 0, 1), 'a1');
    assert.equal(ids('elsewhere', 0, -1), 'b1');
    assert.equal(stepHunk([], 'a', 0, 1), undefined);
  });
});

describe('attached context in user messages', () => {
  test('the typed text is split from what the server appended', async () => {
    const { splitAttached } = await import('../../src/mention');
    const msg = 'Explain this.\n\nSelected code from `src/app.py` (lines 10-14):\n```py\nx\n```';
    assert.deepEqual(splitAttached(msg), { typed: 'Explain this.', attached: 'Selected code from `src/app.py` (lines 10-14):\n```py\nx\n```' });
    assert.deepEqual(splitAttached('Just text.\n\nMore text.'), { typed: 'Just text.\n\nMore text.', attached: '' });
  });
  test('checkpoints holding only the typed text still find their messages', () => {
    const d = new Driver().ev({ type: 'message_start', message: userMsg('Fix it.\n\nDiagnostics in `a.py`:\n- line 1') });
    d.act({ type: 'checkpoints', checkpoints: [{ entryId: 'c1', text: 'Fix it.', files: [] }] });
    assert.equal((d.vm.items[0] as { entryId?: string }).entryId, 'c1');
  });
});
