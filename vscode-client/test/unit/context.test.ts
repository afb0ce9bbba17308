import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { CommandInfo } from '../../src/protocol/generated';
import { parseWebviewMessage } from '../../src/protocol/messages';
import { slashItems, slashLabel, typingCommand } from '../../src/webview/commands';

const PANEL = { '/new': 'start a new session', '/compact': 'summarise', '/context': 'show the context', '/reload': 'reload' };
const SERVER: CommandInfo[] = [
  { name: 'compact', description: 'Summarise the conversation', source: 'builtin' },
  { name: 'context', description: 'Show the context', source: 'builtin' },
  { name: 'reload', description: 'Load again', source: 'builtin' },
  { name: 'review', description: 'Review a change', argumentHint: 'FILE', source: 'prompt', path: '/a/.pi/prompts/review.md' },
  { name: 'skill:release', description: 'Cut a release', argumentHint: 'optional request', source: 'skill', path: '/a/skills/release/SKILL.md' },
];

describe('slash completion', () => {
  test('the panel commands first, then the server templates and skills, its builtins once', () => {
    const names = slashItems('/', PANEL, SERVER).map((i) => i.name);
    assert.deepEqual(names, ['/new', '/compact', '/context', '/reload', '/review', '/skill:release']);
  });
  test('filtered by what was typed, with descriptions and argument hints', () => {
    const [review] = slashItems('/rev', PANEL, SERVER);
    assert.deepEqual(review, { name: '/review', description: 'Review a change', hint: 'FILE', source: 'prompt' });
    assert.equal(slashLabel(review), '/review <FILE> — Review a change');
    assert.deepEqual(slashItems('/skill:', PANEL, SERVER).map(slashLabel), ['/skill:release <optional request> — Cut a release']);
    assert.deepEqual(slashItems('/c', PANEL, []).map((i) => i.name), ['/compact', '/context']);
  });
  test('a command name is being typed only before the first space', () => {
    assert.ok(typingCommand('/'));
    assert.ok(typingCommand('/skill:rel'));
    assert.ok(typingCommand('/fix-bug'));
    assert.ok(!typingCommand('/review a.py'));
    assert.ok(!typingCommand('hello /x'));
  });
  test('the panel may ask for a reload', () => {
    assert.deepEqual(parseWebviewMessage({ type: 'reloadContext' }), { type: 'reloadContext' });
    assert.throws(() => parseWebviewMessage({ type: 'reloadContext', all: true }), /not allowed/);
  });
});
