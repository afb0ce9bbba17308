import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { initialState, reduce, reduceAll, type Action } from '../../src/model/reducer';
import type { AssistantItem, NoticeItem, PermissionItem, ToolItem, UserItem } from '../../src/model/types';
import { asstMsg, Driver, upd, userMsg } from './helpers';

const assistants = (d: Driver) => d.vm.items.filter((i): i is AssistantItem => i.kind === 'assistant');
const users = (d: Driver) => d.vm.items.filter((i): i is UserItem => i.kind === 'user');
const tools = (d: Driver) => d.vm.items.filter((i): i is ToolItem => i.kind === 'tool');
const notices = (d: Driver) => d.vm.items.filter((i): i is NoticeItem => i.kind === 'notice');
const textOf = (a: AssistantItem) => a.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');

/** A whole two-turn run: read a file, then answer. */
function twoTurnRun(d: Driver): Driver {
  return d.ev(
    { type: 'agent_start' },
    { type: 'turn_start' },
    { type: 'message_start', message: userMsg('What is in a.py?') },
    { type: 'message_end', message: userMsg('What is in a.py?') },
    { type: 'message_start', message: asstMsg([]) },
    upd('text_start', 0),
    upd('text_delta', 0, { delta: 'Let me look' }),
    upd('text_delta', 0, { delta: ' at a.py.' }),
    upd('text_end', 0),
    upd('toolcall_start', 1),
    upd('toolcall_delta', 1, { delta: '{"path":"a.py"}' }),
    upd('toolcall_end', 1, { toolCall: { type: 'toolCall', id: 'call_1', name: 'read', arguments: { path: 'a.py' } } }),
    {
      type: 'message_end',
      message: asstMsg(
        [
          { type: 'text', text: 'Let me look at a.py.' },
          { type: 'toolCall', id: 'call_1', name: 'read', arguments: { path: 'a.py' } },
        ],
        { stopReason: 'toolUse', usage: { input: 100, output: 10, cacheRead: 0, cacheWrite: 0, cost: { total: 0.001 } } },
      ),
    },
    { type: 'tool_execution_start', toolCallId: 'call_1', toolName: 'read', args: { path: 'a.py' } },
    {
      type: 'tool_execution_end',
      toolCallId: 'call_1',
      toolName: 'read',
      result: { content: [{ type: 'text', text: 'def f():\n    return 1\n' }] },
      isError: false,
    },
    { type: 'message_start', message: { role: 'toolResult', toolCallId: 'call_1', content: [] } },
    { type: 'message_end', message: { role: 'toolResult', toolCallId: 'call_1', content: [] } },
    { type: 'turn_end', message: asstMsg([]), toolResults: [] },
    { type: 'turn_start' },
    { type: 'message_start', message: asstMsg([]) },
    upd('text_start', 0),
    upd('text_delta', 0, { delta: 'It defines f.' }),
    upd('text_end', 0),
    {
      type: 'message_end',
      message: asstMsg([{ type: 'text', text: 'It defines f.' }], {
        usage: { input: 200, output: 5, cacheRead: 50, cacheWrite: 0, cost: { total: 0.002 } },
      }),
    },
    { type: 'turn_end', message: asstMsg([]), toolResults: [] },
    { type: 'agent_end', messages: [] },
  );
}

describe('pi/event types', () => {
  test('a whole run: user, streamed text, tool card, answer, per-turn usage and session totals', () => {
    const d = twoTurnRun(new Driver());
    assert.equal(d.vm.isStreaming, false);
    assert.equal(d.vm.turn, 2);
    assert.deepEqual(users(d).map((u) => u.text), ['What is in a.py?']);
    const as = assistants(d);
    assert.equal(as.length, 2);
    assert.equal(textOf(as[0]), 'Let me look at a.py.');
    assert.equal(as[0].turn, 1);
    assert.equal(as[1].turn, 2);
    assert.equal(textOf(as[1]), 'It defines f.');
    assert.equal(as[1].usage?.cost, 0.002);
    const t = tools(d);
    assert.equal(t.length, 1);
    assert.equal(t[0].status, 'done');
    assert.equal(t[0].title, 'read a.py');
    assert.equal(t[0].summary, '2 lines');
    assert.equal(t[0].output, 'def f():\n    return 1');
    assert.deepEqual(d.vm.usage, { input: 300, output: 15, cacheRead: 50, cacheWrite: 0, cost: 0.003 });
    assert.equal(d.vm.contextTokens, 255, 'the last call\'s tokens until pi/state says otherwise');
    assert.deepEqual(d.effects, [{ type: 'refresh', sessionId: 'S' }]);
    // order: user, assistant, tool card, assistant
    assert.deepEqual(d.vm.items.map((i) => i.kind), ['user', 'assistant', 'tool', 'assistant']);
  });

  test('partial text is visible while streaming and the item is marked streaming', () => {
    const d = new Driver().ev(
      { type: 'agent_start' },
      { type: 'turn_start' },
      { type: 'message_start', message: asstMsg([]) },
      upd('text_start', 0),
      upd('text_delta', 0, { delta: 'Hel' }),
    );
    assert.equal(d.vm.isStreaming, true);
    const [a] = assistants(d);
    assert.equal(a.streaming, true);
    assert.equal(textOf(a), 'Hel');
  });

  test('thinking deltas build a thinking block', () => {
    const d = new Driver().ev(
      { type: 'agent_start' },
      { type: 'message_start', message: asstMsg([]) },
      upd('thinking_start', 0),
      upd('thinking_delta', 0, { delta: 'Hmm, ' }),
      upd('thinking_delta', 0, { delta: 'let me see.' }),
      upd('thinking_end', 0),
      upd('text_start', 1),
      upd('text_delta', 1, { delta: 'Done.' }),
    );
    const [a] = assistants(d);
    assert.deepEqual(a.blocks, [
      { type: 'thinking', text: 'Hmm, let me see.' },
      { type: 'text', text: 'Done.' },
    ]);
  });

  test('message_end replaces streamed blocks with the final message (authoritative)', () => {
    const d = new Driver().ev(
      { type: 'agent_start' },
      { type: 'message_start', message: asstMsg([]) },
      upd('text_start', 0),
      upd('text_delta', 0, { delta: 'Partial' }),
      { type: 'message_end', message: asstMsg([{ type: 'text', text: 'Partial and whole.' }]) },
    );
    const [a] = assistants(d);
    assert.equal(textOf(a), 'Partial and whole.');
    assert.equal(a.streaming, false);
    assert.equal(a.stopReason, 'stop');
  });

  test('compactEvents: a streamed block in message_end keeps the text built from the deltas', () => {
    const d = new Driver().ev(
      { type: 'agent_start' },
      { type: 'message_start', message: asstMsg([]) },
      upd('thinking_start', 0),
      upd('thinking_delta', 0, { delta: 'Hmm.' }),
      upd('text_start', 1),
      upd('text_delta', 1, { delta: 'Streamed ' }),
      upd('text_delta', 1, { delta: 'answer.' }),
      {
        type: 'message_end',
        message: asstMsg([
          { type: 'thinking', streamed: true },
          { type: 'text', streamed: true },
        ]),
      },
      { type: 'turn_end', messageRef: 9, toolResultRefs: [] },
      { type: 'agent_end', messageRefs: [3, 9] },
    );
    const [a] = assistants(d);
    assert.equal(textOf(a), 'Streamed answer.');
    assert.deepEqual(a.blocks[0], { type: 'thinking', text: 'Hmm.' });
    assert.equal(a.streaming, false);
  });

  test('an aborted or failed answer keeps its text and says why', () => {
    const d = new Driver().ev(
      { type: 'agent_start' },
      { type: 'message_start', message: asstMsg([]) },
      upd('text_start', 0),
      upd('text_delta', 0, { delta: 'Half' }),
      { type: 'message_end', message: asstMsg([{ type: 'text', text: 'Half' }], { stopReason: 'error', errorMessage: '500 boom' }) },
      { type: 'agent_end', messages: [] },
    );
    const [a] = assistants(d);
    assert.equal(a.stopReason, 'error');
    assert.equal(a.errorMessage, '500 boom');
    assert.equal(textOf(a), 'Half');
  });

  test('tool_execution_update streams bash output; an error result marks the card', () => {
    const d = new Driver().ev(
      { type: 'agent_start' },
      { type: 'tool_execution_start', toolCallId: 'b1', toolName: 'bash', args: { command: 'pytest -x' } },
      { type: 'tool_execution_update', toolCallId: 'b1', toolName: 'bash', partialResult: { content: [{ type: 'text', text: 'collecting\n' }] } },
    );
    let [t] = tools(d);
    assert.equal(t.status, 'running');
    assert.equal(t.output, 'collecting');
    assert.equal(t.title, 'bash pytest -x');
    d.ev({
      type: 'tool_execution_end',
      toolCallId: 'b1',
      toolName: 'bash',
      result: { content: [{ type: 'text', text: 'FAILED test_x\nexit code 1' }] },
      isError: true,
    });
    [t] = tools(d);
    assert.equal(t.status, 'error');
    assert.equal(t.summary, 'FAILED test_x');
  });

  test('edit and write cards carry an inline diff', () => {
    const d = new Driver().ev(
      { type: 'tool_execution_start', toolCallId: 'e1', toolName: 'edit', args: { path: 'a.py', edits: [{ oldText: 'x = 1\ny = 2', newText: 'x = 1\ny = 3' }] } },
      { type: 'tool_execution_end', toolCallId: 'e1', toolName: 'edit', result: { content: [{ type: 'text', text: 'ok' }] }, isError: false },
      { type: 'tool_execution_start', toolCallId: 'w1', toolName: 'write', args: { path: 'b.py', content: 'print(1)\n' } },
      {
        type: 'tool_execution_end',
        toolCallId: 'w1',
        toolName: 'write',
        result: { content: [{ type: 'text', text: 'ok' }], details: { patch: '--- a/b.py\n+++ b/b.py\n@@ -0,0 +1 @@\n+print(1)\n' } },
        isError: false,
      },
    );
    const [e, w] = tools(d);
    assert.deepEqual(e.diff, [
      { op: ' ', text: 'x = 1' },
      { op: '-', text: 'y = 2' },
      { op: '+', text: 'y = 3' },
    ]);
    assert.deepEqual(w.diff, [
      { op: ' ', text: '@@ -0,0 +1 @@' },
      { op: '+', text: 'print(1)' },
    ]);
  });

  test('agent_end leaves nothing running', () => {
    const d = new Driver().ev(
      { type: 'agent_start' },
      { type: 'message_start', message: asstMsg([]) },
      upd('toolcall_start', 0),
      upd('toolcall_end', 0, { toolCall: { id: 'x1', name: 'ls', arguments: {} } }),
      { type: 'agent_end', messages: [] },
    );
    assert.equal(d.vm.isStreaming, false);
    assert.equal(assistants(d)[0].streaming, false);
    assert.equal(tools(d)[0].status, 'error');
    assert.equal(tools(d)[0].summary, 'not run');
  });

  test('compaction_start / compaction_end notices and the context estimate', () => {
    const d = new Driver().ev(
      { type: 'compaction_start', reason: 'threshold' },
      { type: 'compaction_end', reason: 'threshold', tokensBefore: 120000, tokensAfter: 20000 },
    );
    assert.equal(d.vm.compacting, false);
    const texts = notices(d).map((n) => n.text);
    assert.match(texts[0], /Compacting the conversation \(threshold\)/);
    assert.match(texts[1], /120k → 20k tokens/);
    assert.equal(d.vm.contextTokens, 20000);
    d.ev({ type: 'compaction_end', reason: 'manual', errorMessage: 'no model' });
    assert.equal(notices(d)[2].level, 'warning');
  });

  test('session_save failures and recovery are noted', () => {
    const d = new Driver().ev({ type: 'session_save', ok: false, errorMessage: 'disk full' }, { type: 'session_save', ok: true });
    assert.equal(notices(d)[0].level, 'error');
    assert.match(notices(d)[0].text, /disk full/);
    assert.equal(notices(d)[1].level, 'info');
  });

  test('retry notices', () => {
    const d = new Driver().ev({ type: 'retry', attempt: 2, delayMs: 4000, errorMessage: '429 slow down' });
    assert.equal(notices(d)[0].text, '429 slow down — retrying (attempt 2) in 4.0 s');
    assert.equal(notices(d)[0].topic, 'retry');
  });

  test('unknown event types are ignored but still advance seq', () => {
    const d = new Driver().ev({ type: 'something_new', x: 1 });
    assert.equal(d.vm.items.length, 0);
    assert.equal(d.vm.lastSeq, 1);
  });
});

describe('queue (§7)', () => {
  test('queue_update shows the queue; a delivered message says where it landed', () => {
    const d = new Driver().ev(
      { type: 'agent_start' },
      { type: 'turn_start' },
      { type: 'message_start', message: userMsg('go') },
      { type: 'queue_update', steering: [{ id: 'q1', text: 'be brief' }], followUp: [{ id: 'q2', text: 'then docs' }] },
    );
    assert.equal(d.vm.features.queue, true);
    assert.deepEqual(d.vm.queue.steering, [{ id: 'q1', text: 'be brief' }]);
    d.ev(
      { type: 'turn_end' },
      { type: 'turn_start' },
      { type: 'message_start', message: userMsg('be brief'), queuedId: 'q1', deliveredAs: 'steer' },
      { type: 'queue_update', steering: [], followUp: [{ id: 'q2', text: 'then docs' }] },
    );
    const u = users(d)[1];
    assert.equal(u.deliveredAs, 'steer');
    assert.equal(u.queuedId, 'q1');
    assert.equal(u.turn, 2);
    assert.deepEqual(d.vm.queue.steering, []);
    assert.equal(d.vm.queue.followUp.length, 1);
  });

  test('without queue_update, a locally queued steer disappears when delivered and is marked', () => {
    const d = new Driver().ev({ type: 'agent_start' }, { type: 'turn_start' }, { type: 'message_start', message: userMsg('go') });
    d.act({ type: 'localQueue', text: 'be brief', deliverAs: 'steer' });
    assert.equal(d.vm.queue.steering.length, 1);
    assert.match(d.vm.queue.steering[0].id, /^local:/);
    d.ev({ type: 'turn_start' }, { type: 'message_start', message: userMsg('be brief') });
    assert.equal(d.vm.queue.steering.length, 0);
    assert.equal(users(d)[1].deliveredAs, 'steer');
    assert.equal(users(d)[1].turn, 2);
  });

  test('the queue action (pi/queue result) replaces the queue', () => {
    const d = new Driver().act({ type: 'queue', queue: { steering: [], followUp: [{ id: 'a', text: 'x' }] } });
    assert.deepEqual(d.vm.queue, { steering: [], followUp: [{ id: 'a', text: 'x' }] });
  });
});

describe('review (§9)', () => {
  const hunk = { id: 'h1', toolCallId: 'e1', range: { start: { line: 1, character: 0 }, end: { line: 2, character: 0 } }, oldText: 'a\n', newText: 'b\n' };
  test('review_update sets the pending hunks per file; an empty file is dropped', () => {
    const d = new Driver().ev({ type: 'review_update', files: [{ uri: 'file:///w/a.py', hunks: [hunk] }, { uri: 'file:///w/b.py', hunks: [] }] });
    assert.equal(d.vm.features.review, true);
    assert.deepEqual(d.vm.review, [{ uri: 'file:///w/a.py', hunks: [hunk] }]);
    d.ev({ type: 'review_update', files: [] });
    assert.deepEqual(d.vm.review, []);
  });
  test('the review action (pi/review result) works the same', () => {
    const d = new Driver().act({ type: 'review', files: [{ uri: 'u', hunks: [hunk] }] });
    assert.equal(d.vm.review.length, 1);
  });
  const note = {
    role: 'custom',
    customType: 'review_note',
    content: '[The user reviewed your edits and undid these changes; do not make them again unless asked:]\n- app.py lines 2-2: undid',
    display: true,
    details: { summary: 'you undid app.py line 2' },
  };
  test('a review note is a muted marker, not a user bubble; the user text stays as typed', () => {
    const d = new Driver().ev(
      { type: 'message_start', message: userMsg('did I change anything?') },
      { type: 'message_end', message: userMsg('did I change anything?') },
      { type: 'message_start', message: note },
      { type: 'message_end', message: note },
    );
    assert.deepEqual(users(d).map((u) => u.text), ['did I change anything?']);
    const told = notices(d).filter((n) => n.topic === 'told');
    assert.equal(told.length, 1);
    assert.equal(told[0].text, 'pi was told: you undid app.py line 2');
    assert.equal(told[0].detail, note.content);
  });
  test('a note an older server joined to the user message is split off: marker, then the words as typed', () => {
    const glued = { role: 'user', content: [{ type: 'text', text: note.content }, { type: 'text', text: 'go on' }] };
    const d = new Driver().ev({ type: 'message_start', message: glued }, { type: 'message_end', message: glued });
    assert.deepEqual(users(d).map((u) => u.text), ['go on']);
    assert.deepEqual(notices(d).map((n) => n.text), ['pi was told: app.py lines 2-2: undid']);
    const r = new Driver();
    r.act({ type: 'loadSession', sessionId: 'S', messages: [glued] });
    assert.deepEqual(users(r).map((u) => u.text), ['go on']);
    assert.equal(notices(r).filter((n) => n.topic === 'told').length, 1);
  });
  test('a review note in a loaded transcript is the same marker; a hidden custom message is not shown', () => {
    const d = new Driver();
    d.act({ type: 'loadSession', sessionId: 'S', messages: [userMsg('go on'), note, { ...note, display: false }] });
    assert.deepEqual(users(d).map((u) => u.text), ['go on']);
    assert.deepEqual(notices(d).map((n) => n.text), ['pi was told: you undid app.py line 2']);
  });
});

describe('ordering: duplicates, gaps, replay', () => {
  test('a replayed or duplicated event is applied once', () => {
    const d = new Driver().ev({ type: 'agent_start' }, { type: 'message_start', message: asstMsg([]) }, upd('text_start', 0), upd('text_delta', 0, { delta: 'A' }));
    d.evAt(4, upd('text_delta', 0, { delta: 'A' }));
    d.evAt(2, { type: 'message_start', message: asstMsg([]) });
    assert.equal(assistants(d).length, 1);
    assert.equal(textOf(assistants(d)[0]), 'A');
  });

  test('a seq gap holds later events and asks for pi/replay once', () => {
    const d = new Driver().ev({ type: 'agent_start' }, { type: 'message_start', message: asstMsg([]) }, upd('text_start', 0));
    d.evAt(5, upd('text_delta', 0, { delta: 'C' }));
    d.evAt(6, upd('text_delta', 0, { delta: 'D' }));
    assert.deepEqual(d.effects, [{ type: 'replay', sessionId: 'S', afterSeq: 3 }]);
    assert.equal(d.vm.replayAfter, 3);
    assert.equal(textOf(assistants(d)[0]), '');
    // The replay fills 4 (and repeats 5); held 6 is then applied in order.
    d.act({
      type: 'replay',
      sessionId: 'S',
      complete: true,
      events: [
        { sessionId: 'S', seq: 5, event: upd('text_delta', 0, { delta: 'C' }) as never },
        { sessionId: 'S', seq: 4, event: upd('text_delta', 0, { delta: 'B' }) as never },
      ],
    });
    assert.equal(textOf(assistants(d)[0]), 'BCD');
    assert.equal(d.vm.lastSeq, 6);
    assert.equal(d.vm.replayAfter, null);
    assert.equal(d.vm.held.length, 0);
  });

  test('a session loaded mid-run (liveRun) takes the run from the replay, live events after it, nothing twice', () => {
    const d = new Driver();
    const note = (seq: number, event: Record<string, unknown>) => ({ sessionId: 'S', seq, event: event as never });
    // the transcript before the run (2 messages), the run began after seq 10
    d.act({ type: 'loadSession', sessionId: 'S', messages: [userMsg('q0'), asstMsg([{ type: 'text', text: 'a0' }])], afterSeq: 10 });
    // a live delta overtakes the replay: held, and the replay asked for once
    d.evAt(16, upd('text_delta', 0, { delta: 'C' }));
    assert.deepEqual(d.effects, [{ type: 'replay', sessionId: 'S', afterSeq: 10 }]);
    d.act({
      type: 'replay',
      sessionId: 'S',
      complete: true,
      events: [
        note(11, { type: 'agent_start' }),
        note(12, { type: 'message_start', message: userMsg('q1') }),
        note(13, { type: 'message_end', message: userMsg('q1') }),
        note(14, { type: 'message_start', message: asstMsg([]) }),
        note(15, upd('text_delta', 0, { delta: 'AB' })),
        note(16, upd('text_delta', 0, { delta: 'C' })),
      ],
    });
    d.evAt(16, upd('text_delta', 0, { delta: 'C' }));
    d.evAt(17, upd('text_delta', 0, { delta: 'D' }));
    const users = d.vm.items.filter((i) => i.kind === 'user');
    assert.equal(users.length, 2);
    assert.equal(assistants(d).length, 2);
    assert.equal(textOf(assistants(d)[1]), 'ABCD');
    assert.equal(d.vm.isStreaming, true);
    assert.equal(d.vm.lastSeq, 17);
  });

  test('out-of-order arrival within a gap is put back in order', () => {
    const d = new Driver().ev({ type: 'agent_start' }, { type: 'message_start', message: asstMsg([]) }, upd('text_start', 0));
    d.evAt(5, upd('text_delta', 0, { delta: '3' }));
    d.evAt(4, upd('text_delta', 0, { delta: '2' }));
    assert.equal(textOf(assistants(d)[0]), '23');
    assert.equal(d.vm.lastSeq, 5);
    // 4 arrived by itself: the replay that was asked for finds nothing new.
    d.act({ type: 'replay', sessionId: 'S', events: [], complete: true });
    assert.equal(d.vm.replayAfter, null);
  });

  test('an incomplete replay asks to reload the transcript', () => {
    const d = new Driver().ev({ type: 'agent_start' });
    d.evAt(9, { type: 'turn_start' });
    d.act({ type: 'replay', sessionId: 'S', events: [], complete: false });
    assert.deepEqual(d.effects.at(-1), { type: 'reload', sessionId: 'S' });
    assert.equal(d.vm.held.length, 0);
  });

  test('events of another session are ignored', () => {
    const d = new Driver();
    d.act({ type: 'event', note: { sessionId: 'OTHER', seq: 1, event: { type: 'agent_start' } } });
    assert.equal(d.vm.isStreaming, false);
    assert.equal(d.vm.lastSeq, null);
  });

  test('after a resume the first event sets the baseline seq', () => {
    const d = new Driver();
    d.evAt(41, { type: 'agent_start' });
    assert.equal(d.vm.isStreaming, true);
    d.evAt(42, { type: 'turn_start' });
    assert.equal(d.vm.turn, 1);
    assert.equal(d.effects.length, 0);
  });

  test('disconnect ends the run locally and forgets the seq (a restarted server starts at 1)', () => {
    const d = new Driver().ev({ type: 'agent_start' }, { type: 'message_start', message: asstMsg([]) }, upd('text_start', 0), upd('text_delta', 0, { delta: 'so far' }));
    d.act({ type: 'disconnected', reason: 'The pi server stopped.' });
    assert.equal(d.vm.isStreaming, false);
    assert.equal(d.vm.lastSeq, null);
    const [a] = assistants(d);
    assert.equal(textOf(a), 'so far', 'what was shown is kept');
    assert.equal(a.stopReason, 'error');
    d.evAt(1, { type: 'agent_start' });
    assert.equal(d.vm.isStreaming, true);
  });
});

describe('sessions, state, checkpoints, permissions', () => {
  test('loadSession rebuilds the transcript from wire messages with entry ids', () => {
    const d = new Driver();
    d.act({
      type: 'loadSession',
      sessionId: 'T',
      messages: [
        userMsg('hi'),
        asstMsg([{ type: 'text', text: 'reading' }, { type: 'toolCall', id: 'c', name: 'read', arguments: { path: 'x' } }], { usage: { input: 5, output: 1, cost: { total: 0.5 } } }),
        { role: 'toolResult', toolCallId: 'c', toolName: 'read', content: [{ type: 'text', text: 'body' }], isError: false },
        asstMsg([{ type: 'text', text: 'done' }]),
        { role: 'compactionSummary', summary: '...' },
      ],
      entryIds: ['e1', 'e2', 'e3', 'e4', null],
    });
    assert.equal(d.vm.sessionId, 'T');
    assert.deepEqual(d.vm.items.map((i) => i.kind), ['user', 'assistant', 'tool', 'assistant', 'notice']);
    assert.equal(users(d)[0].entryId, 'e1');
    assert.equal(tools(d)[0].status, 'done');
    assert.equal(d.vm.usage.cost, 0.5);
    assert.equal(d.vm.lastSeq, null);
  });

  test('pi/state fills model, usage and the context meter; a finished run is trusted', () => {
    const d = new Driver().ev({ type: 'agent_start' });
    d.act({
      type: 'state',
      state: {
        sessionId: 'S',
        isStreaming: false,
        model: { id: 'm1', name: 'Model One', provider: 'openai', contextWindow: 128000 },
        usage: { input: 1, output: 2, cacheRead: 3, cacheWrite: 4, cost: 0.25 },
        contextTokens: 5000,
      },
    });
    assert.equal(d.vm.isStreaming, false);
    assert.deepEqual(d.vm.model, { provider: 'openai', id: 'm1', name: 'Model One', contextWindow: 128000 });
    assert.equal(d.vm.contextWindow, 128000);
    assert.equal(d.vm.contextTokens, 5000);
    assert.equal(d.vm.usage.cost, 0.25);
  });

  test('pi/state and pi/mcp fill the MCP server list (bad rows dropped)', () => {
    const d = new Driver();
    d.act({
      type: 'state',
      state: {
        mcp: [
          { name: 'time', source: 'project', transport: 'stdio', target: 'uvx mcp-server-time', state: 'ready', toolCount: 2 },
          { name: 'gh', source: 'user', transport: 'http', target: 'https://x', state: 'failed', message: 'boom', toolCount: 0 },
          { nope: true },
        ],
      },
    });
    assert.deepEqual(
      d.vm.mcp.map((s) => [s.name, s.state, s.toolCount, s.message]),
      [['time', 'ready', 2, undefined], ['gh', 'failed', 0, 'boom']],
    );
  });

  test('an MCP tool card names the server and the tool', () => {
    const d = new Driver().ev(
      { type: 'agent_start' },
      { type: 'tool_execution_start', toolCallId: 'c1', toolName: 'mcp__time__convert_time', args: { time: '12:00' } },
    );
    assert.equal(tools(d)[0].title, 'MCP time: convert_time {"time":"12:00"}');
  });

  test('checkpoints give user messages their entry ids in order', () => {
    const d = new Driver().ev({ type: 'message_start', message: userMsg('one') }, { type: 'message_start', message: userMsg('two') });
    d.act({ type: 'checkpoints', checkpoints: [{ entryId: 'c1', text: 'one', files: [] }, { entryId: 'c2', text: 'two', files: [] }] });
    assert.deepEqual(users(d).map((u) => u.entryId), ['c1', 'c2']);
  });

  test('entry ids from a transcript reach the live user messages (for Fork)', () => {
    const d = new Driver().ev({ type: 'message_start', message: userMsg('a') }, { type: 'message_start', message: userMsg('b') });
    d.act({ type: 'entryIds', users: [{ entryId: 'x1', text: 'a' }, { entryId: 'x2', text: 'b' }] });
    assert.deepEqual(users(d).map((u) => u.entryId), ['x1', 'x2']);
    assert.deepEqual(d.vm.checkpoints, [], 'not checkpoints');
  });

  test('a permission card is pending, then answered; withdrawn on disconnect', () => {
    const d = new Driver();
    d.act({
      type: 'permissionAsk',
      requestKey: 'r1',
      params: { toolCallId: 't', tool: 'bash', title: 'Run?', detail: 'rm -rf x', options: [{ id: 'once', label: 'Allow once', kind: 'allowOnce' }] },
    });
    assert.equal(d.vm.permissions.length, 1);
    const card = d.vm.items[0] as PermissionItem;
    assert.equal(card.status, 'pending');
    assert.equal(card.detail, 'rm -rf x');
    d.act({ type: 'permissionDone', requestKey: 'r1', answer: 'Allow once' });
    assert.equal(d.vm.permissions.length, 0);
    assert.equal((d.vm.items[0] as PermissionItem).status, 'answered');
    assert.equal((d.vm.items[0] as PermissionItem).answer, 'Allow once');
    d.act({ type: 'permissionAsk', requestKey: 'r2', params: { tool: 'bash', options: [] } });
    d.act({ type: 'disconnected', reason: 'gone' });
    assert.equal((d.vm.items[1] as PermissionItem).status, 'withdrawn');
    assert.equal(d.vm.permissions.length, 0);
  });
});

describe('immutability and determinism', () => {
  test('the previous view model is never mutated; unchanged items keep their identity', () => {
    const d = twoTurnRun(new Driver());
    const before = d.vm;
    const frozen = JSON.stringify(before);
    const r = reduce(before, { type: 'notice', level: 'info', topic: 'info', text: 'x' });
    assert.equal(JSON.stringify(before), frozen);
    assert.equal(r.vm.items[0], before.items[0]);
    assert.ok(r.vm.rev > before.rev);
    assert.equal(r.vm.items.at(-1)!.rev, r.vm.rev);
  });

  test('the host and the webview reach the same model from the same actions', () => {
    const actions: Action[] = [{ type: 'loadSession', sessionId: 'S', messages: [] }];
    const d = new Driver();
    const orig = d.act.bind(d);
    d.act = (a: Action) => {
      actions.push(a);
      return orig(a);
    };
    twoTurnRun(d);
    const replayed = reduceAll(initialState(), actions).vm;
    assert.deepEqual(replayed, d.vm);
  });

  test('10 000 streamed deltas stay fast enough to reduce (no per-event transcript copies of text)', () => {
    const d = new Driver().ev({ type: 'agent_start' }, { type: 'message_start', message: asstMsg([]) }, upd('text_start', 0));
    for (let i = 0; i < 10000; i++) d.ev(upd('text_delta', 0, { delta: 'tok ' }));
    assert.equal(textOf(assistants(d)[0]).length, 40000);
  });
});

describe('switching sessions', () => {
  test('a resume keeps the queue_update the server sent before answering', () => {
    const d = new Driver('A');
    d.act({ type: 'beginSession', sessionId: 'B' });
    d.act({ type: 'event', note: { sessionId: 'B', seq: 7, event: { type: 'queue_update', steering: [], followUp: [{ id: 'q', text: 'later' }] } } });
    d.act({ type: 'loadSession', sessionId: 'B', messages: [userMsg('hello')] });
    assert.equal(d.vm.sessionId, 'B');
    assert.deepEqual(d.vm.queue.followUp, [{ id: 'q', text: 'later' }]);
    assert.deepEqual(users(d).map((u) => u.text), ['hello']);
    assert.equal(d.vm.lastSeq, null, 'a reload starts a new seq baseline');
  });
  test('switching to another session forgets the old queue and review', () => {
    const d = new Driver('A').ev({ type: 'queue_update', steering: [{ id: 'x', text: 'y' }], followUp: [] });
    d.act({ type: 'beginSession', sessionId: 'B' });
    assert.deepEqual(d.vm.queue, { steering: [], followUp: [] });
    assert.equal(d.vm.items.length, 0);
  });
  test('a pending permission card survives a reload of the same session', () => {
    const d = new Driver('A');
    d.act({ type: 'permissionAsk', requestKey: 'r1', params: { tool: 'bash', options: [] } });
    d.act({ type: 'loadSession', sessionId: 'A', messages: [userMsg('x')] });
    assert.deepEqual(d.vm.items.map((i) => i.kind), ['user', 'permission']);
    assert.equal(d.vm.permissions.length, 1);
  });
});
