// `@` mentions of workspace symbols in the composer (feature table row 48): the host's
// conversion and ranking of VS Code's SymbolInformation (0-based SymbolKind), its debounced
// latest-only search, and the webview's mix of files and symbols.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Latest, type Timers } from '../../src/lsp/latest';
import { choiceOf, kindName, symbolChoices, wantsSymbols, wholeRange, type SymbolLike } from '../../src/lsp/symbolMentions';
import type { SymbolChoice } from '../../src/protocol/messages';
import { matchRank } from '../../src/symbolMatch';
import { keptSymbols, kindBadge, mentionItems } from '../../src/webview/mentionItems';

// VS Code's SymbolKind: File = 0, Class = 4, Method = 5, Function = 11, Variable = 12
const VS = { class: 4, method: 5, function: 11, variable: 12 };

function sym(name: string, kind: number, path: string, start: number, end: number, endChar = 5, containerName?: string): SymbolLike {
  return {
    name,
    kind,
    containerName,
    location: { uri: { toString: () => `file:///w/${path}` }, range: { start: { line: start }, end: { line: end, character: endChar } } },
  };
}
const rel = (s: SymbolLike): string | undefined => {
  const u = s.location.uri.toString();
  return u.startsWith('file:///w/') ? u.slice('file:///w/'.length) : undefined;
};

test('a symbol becomes path#Lx-y of its whole range, with its kind (0-based → LSP name) and container', () => {
  const [c] = symbolChoices([sym('load_config', VS.function, 'app/config.py', 17, 19, 4, 'app.config')], 'load_con', rel);
  assert.deepEqual(c, { insert: 'app/config.py#L18-20', name: 'load_config', kind: 'function', container: 'app.config', path: 'app/config.py' });
  const [m] = symbolChoices([sym('load', VS.method, 'app/a.py', 3, 9, 0, 'Loader')], 'lo', rel);
  assert.equal(m.kind, 'method', 'VS Code Method = 5 is LSP Method = 6');
  assert.equal(m.insert, 'app/a.py#L4-9', 'a range ending at column 0 leaves that line out');
  assert.equal(symbolChoices([sym('Loader', VS.class, 'a.py', 0, 0)], 'lo', rel)[0].kind, 'class');
  assert.equal(symbolChoices([sym('x', VS.variable, 'a.py', 4, 4)], 'x', rel)[0].insert, 'a.py#L5');
  assert.equal(kindName(0), 'symbol');
  assert.equal(kindName(12), 'function');
});

test('ranking: exact, prefix, substring, in-order characters; outside the workspace and non-matches left out', () => {
  const out = symbolChoices(
    [
      sym('reload_config', VS.function, 'app/b.py', 2, 4),
      sym('load_config_file', VS.function, 'app/c.py', 0, 1),
      sym('load_config', VS.function, 'app/config.py', 17, 19),
      sym('lxoxaxd', VS.variable, 'app/d.py', 0, 0),
      sym('unrelated', VS.variable, 'app/e.py', 0, 0),
      { ...sym('load_config', VS.function, 'x.py', 0, 0), location: { uri: { toString: () => 'file:///elsewhere/x.py' }, range: { start: { line: 0 }, end: { line: 0, character: 1 } } } },
    ],
    'load',
    rel,
  );
  assert.deepEqual(out.map((c) => c.name), ['load_config', 'load_config_file', 'reload_config', 'lxoxaxd']);
  assert.equal(matchRank('Load', 'load'), 1);
  assert.ok(matchRank('load_x', 'load')! < matchRank('Load_x', 'load')!, 'the typed case first');
  assert.equal(matchRank('abc', 'abd'), undefined);
});

test('the same mention twice is offered once, and at most `limit`', () => {
  const many = Array.from({ length: 30 }, (_, i) => sym(`load${i}`, VS.function, `m${i}.py`, 0, 1));
  assert.equal(symbolChoices(many, 'load', rel).length, 20);
  const twice = [sym('load', VS.function, 'a.py', 0, 1), sym('load', VS.function, 'a.py', 0, 1)];
  assert.equal(symbolChoices(twice, 'load', rel).length, 1);
});

test('a symbol located by its name only (jedi, pyright) is widened to its whole range from the outline', () => {
  const r = (a: number, b: number, c = 4) => ({ start: { line: a, character: 0 }, end: { line: b, character: c } });
  const outline = [
    { name: 'Loader', range: r(3, 7), selectionRange: r(3, 3), children: [{ name: 'load', range: r(6, 7), selectionRange: r(6, 6) }] },
    { name: 'load_config', range: r(17, 19), selectionRange: r(17, 17) },
  ];
  assert.deepEqual(wholeRange(outline, 'load_config', 17), r(17, 19));
  assert.deepEqual(wholeRange(outline, 'load', 6), r(6, 7), 'a method inside its class');
  assert.equal(wholeRange(outline, 'load', 17), undefined, 'not the name on that line');
  assert.deepEqual(wholeRange([{ name: 'f', location: { range: r(1, 3) } }], 'f', 1), r(1, 3), 'flat SymbolInformation');
  assert.equal(wholeRange(undefined, 'f', 1), undefined);
  const s = sym('load_config', VS.function, 'app/config.py', 17, 17, 15);
  assert.equal(choiceOf(s, 'app/config.py').insert, 'app/config.py#L18');
  assert.equal(choiceOf(s, 'app/config.py', wholeRange(outline, 'load_config', 17)).insert, 'app/config.py#L18-20');
});

test('symbols are asked for names of two characters or more, not for paths', () => {
  assert.equal(wantsSymbols('lo'), true);
  assert.equal(wantsSymbols('l'), false);
  assert.equal(wantsSymbols('src/a'), false);
  assert.equal(wantsSymbols('config.py'), false);
});

class FakeTimers implements Timers {
  now = 0;
  private pending: { at: number; fn: () => void; id: number }[] = [];
  private next = 0;
  set(fn: () => void, ms: number): unknown {
    const id = ++this.next;
    this.pending.push({ at: this.now + ms, fn, id });
    return id;
  }
  clear(handle: unknown): void {
    this.pending = this.pending.filter((p) => p.id !== handle);
  }
  advance(ms: number): void {
    this.now += ms;
    const due = this.pending.filter((p) => p.at <= this.now);
    this.pending = this.pending.filter((p) => p.at > this.now);
    for (const p of due) p.fn();
  }
}

test('debounce: fast typing asks once, for the last query, 150 ms after the last key', async () => {
  const timers = new FakeTimers();
  const asked: string[] = [];
  const latest = new Latest<string, string>(async (q) => {
    asked.push(q);
    return `answer ${q}`;
  }, 150, timers);
  const got: string[] = [];
  for (const q of ['lo', 'loa', 'load', 'load_']) {
    latest.request(q, (a) => got.push(a));
    timers.advance(100);
  }
  assert.deepEqual(asked, [], 'nothing asked while keys come faster than 150 ms');
  timers.advance(50);
  assert.deepEqual(asked, ['load_']);
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, ['answer load_']);
});

test('a stale answer (a newer request was made while it ran) is dropped', async () => {
  const timers = new FakeTimers();
  const resolvers = new Map<string, (a: string) => void>();
  const latest = new Latest<string, string>((q) => new Promise((res) => resolvers.set(q, res)), 150, timers);
  const got: string[] = [];
  latest.request('load', (a) => got.push(a));
  timers.advance(150); // 'load' is being asked
  latest.request('load_con', (a) => got.push(a));
  timers.advance(150); // 'load_con' too
  resolvers.get('load_con')!('new');
  resolvers.get('load')!('old'); // the slow, older answer arrives last
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(got, ['new']);
  latest.request('x', (a) => got.push(a));
  latest.cancel();
  timers.advance(1000);
  assert.equal(resolvers.has('x'), false, 'a cancelled request is never asked');
});

const choice = (name: string, path: string, kind = 'function'): SymbolChoice => ({ insert: `${path}#L1-2`, name, kind, path });

test('files and symbols: a path lists files only; a name lists matching file names, then symbols, then other files', () => {
  const files = ['app/loader.py', 'docs/reload.md'];
  const symbols = [choice('load_config', 'app/config.py')];
  assert.deepEqual(
    mentionItems('load', files, symbols).map((i) => `${i.type}:${i.insert}`),
    ['file:app/loader.py', 'symbol:app/config.py#L1-2', 'file:docs/reload.md'],
  );
  assert.deepEqual(mentionItems('app/lo', files, symbols).map((i) => i.type), ['file', 'file']);
  assert.deepEqual(mentionItems('load', files, []).map((i) => i.insert), files);
});

test('while the newer answer is on the way, the symbols of the query being extended that still match stay', () => {
  const prev = [choice('load_config', 'a.py'), choice('loader', 'b.py')];
  assert.deepEqual(keptSymbols('load', 'load_c', prev).map((s) => s.name), ['load_config']);
  assert.deepEqual(keptSymbols('load', 'lo', prev), [], 'a shorter query asks again');
  assert.deepEqual(keptSymbols('load', 'save', prev), []);
  assert.equal(kindBadge('function'), 'fn');
  assert.equal(kindBadge('operator'), 'operator');
});
