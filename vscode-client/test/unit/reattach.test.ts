import assert from 'node:assert/strict';
import { mock, test } from 'node:test';
import type { Host } from '../../src/controller/host';
import type { Sessions as SessionsClass } from '../../src/controller/sessions';
import { postSnapshot } from '../../src/controller/snapshot';
import { type Action, initialState, reduce, reduceAll, type WireNotification } from '../../src/model/reducer';
import type { AssistantItem, ViewModel } from '../../src/model/types';
import type { HostMessage, PanelSettings } from '../../src/protocol/messages';
import { asstMsg, upd, userMsg, withVscode } from './helpers';

// Re-attaching to a run the background server kept going (a window reload), under the two
// timings that lost the end of the answer: the panel's snapshot taken while actions kept
// coming, and a gap repair under way when the session's transcript loaded.

const vscode = { workspace: { getConfiguration: () => ({ get: () => undefined }) } };
const SETTINGS: PanelSettings = { enterAction: 'steer', hasApiKey: true, edits: 'apply' };
const PIECES = ['Alpha one. ', 'Bravo two. ', 'Charlie three. ', 'Delta four. ', 'Echo five. ', 'Foxtrot six.'];
const ANSWER = PIECES.join('');

/** The run's events from `first` on: seq first.. (agent_start … agent_end, one answer). */
function runEvents(first: number): WireNotification[] {
  const events = [
    { type: 'agent_start' },
    { type: 'turn_start' },
    { type: 'message_start', message: userMsg('Tell me.') },
    { type: 'message_end', message: userMsg('Tell me.') },
    { type: 'message_start', message: asstMsg([]) },
    upd('text_start', 0),
    ...PIECES.map((delta) => upd('text_delta', 0, { delta })),
    upd('text_end', 0),
    // compact events: the text the deltas brought is left out of message_end
    { type: 'message_end', message: asstMsg([{ type: 'text', text: '', streamed: true }]) },
    { type: 'turn_end', message: asstMsg([]), toolResults: [] },
    { type: 'agent_end', messages: [] },
  ];
  return events.map((event, i) => ({ sessionId: 'S', seq: first + i, event }));
}

const answerOf = (vm: ViewModel): string[] =>
  vm.items
    .filter((i): i is AssistantItem => i.kind === 'assistant')
    .map((a) => a.blocks.map((b) => (b.type === 'text' ? b.text : '')).join(''));

function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

test('a panel opened while a run streams gets every event: the snapshot holds what its outbox drops', async () => {
  mock.timers.enable({ apis: ['setTimeout'] });
  try {
    const { Outbox } = await withVscode(vscode, () => import('../../src/panel'));
    let host = initialState();
    let view: ViewModel | null = null;
    const outbox = new Outbox({
      postMessage: async (m: HostMessage) => {
        if (m.type === 'snapshot') view = m.vm;
        else if (m.type === 'actions' && view) view = reduceAll(view, m.actions).vm;
        return true;
      },
    });
    const dispatch = (a: Action) => {
      host = reduce(host, a).vm;
      outbox.push({ type: 'actions', actions: [a] });
    };
    const events = runEvents(1);
    dispatch({ type: 'loadSession', sessionId: 'S', messages: [] });
    for (const note of events.slice(0, 8)) dispatch({ type: 'event', note });
    // the reloaded panel says `ready`; its settings take a while (the key lookup)
    const settings = deferred<PanelSettings>();
    const posted = postSnapshot((m) => outbox.push(m), () => host, () => settings.promise);
    for (const note of events.slice(8, 10)) dispatch({ type: 'event', note }); // meanwhile
    settings.resolve(SETTINGS);
    await posted;
    for (const note of events.slice(10)) dispatch({ type: 'event', note });
    mock.timers.tick(20);
    assert.deepEqual(answerOf(host), [ANSWER]);
    assert.ok(view, 'the panel got its snapshot');
    assert.deepEqual(answerOf(view), [ANSWER], 'the panel shows the whole answer, once');
    assert.equal((view as ViewModel).lastSeq, host.lastSeq);
  } finally {
    mock.timers.reset();
  }
});

test('attaching to a live run while a gap repair is under way still replays the whole run', async () => {
  const { Sessions } = await withVscode(vscode, () => import('../../src/controller/sessions'));
  let vm = initialState();
  const replies: { afterSeq: number; reply: ReturnType<typeof deferred<{ events: WireNotification[]; complete: boolean }>> }[] = [];
  const server = runEvents(101); // the run: seq 101 … ; the transcript before it ends at 100
  const host = {
    state: () => vm,
    dispatch: (...actions: Action[]) => {
      for (const a of actions) {
        const r = reduce(vm, a);
        vm = r.vm;
        for (const e of r.effects) if (e.type === 'replay') void sessions.replay(e.sessionId, e.afterSeq);
      }
    },
    rpc: () => ({
      resumeSession: async () => ({
        sessionId: 'S',
        messages: [userMsg('Before.'), asstMsg([{ type: 'text', text: 'Earlier answer.' }])],
        liveRun: { afterSeq: 100, messageCount: 2 },
      }),
      replay: ({ afterSeq }: { afterSeq: number }) => {
        const reply = deferred<{ events: WireNotification[]; complete: boolean }>();
        replies.push({ afterSeq, reply });
        return reply.promise;
      },
      state: async () => ({ sessionId: 'S', isStreaming: false }), // the run is over by then
    }),
    context: { workspaceState: { update: async () => undefined, get: () => undefined } },
    post: () => undefined,
    log: () => undefined,
    features: () => ({ has: () => false }),
  } as unknown as Host;
  const quiet = { pull: async () => undefined, list: async () => undefined, pullMcp: async () => undefined, pollMcp: () => undefined };
  const sessions: SessionsClass = new Sessions(host, { review: quiet, checkpoints: quiet, models: quiet } as never);
  // the new window sees the live run's events before it has loaded the session: two of them,
  // with one missing between (a gap: a repair from seq 105 goes out)
  sessions.event(server[4] as never);
  sessions.event(server[6] as never);
  assert.deepEqual(replies.map((r) => r.afterSeq), [105]);
  // the window attaches to the session's live run: transcript up to the run, then its events
  const loaded = sessions.load('S');
  await new Promise((r) => setImmediate(r)); // resumeSession answered, the transcript loaded
  assert.equal(vm.lastSeq, 100);
  // the repair sent before answers for what it asked: the run's events from 106 on
  replies[0].reply.resolve({ events: server.slice(5), complete: true });
  await new Promise((r) => setImmediate(r));
  assert.deepEqual(replies.map((r) => r.afterSeq), [105, 100], 'a second round from where the transcript stands');
  replies[1].reply.resolve({ events: server, complete: true });
  await loaded;
  assert.deepEqual(answerOf(vm), ['Earlier answer.', ANSWER]);
  assert.equal(vm.lastSeq, server[server.length - 1].seq);
  assert.equal(vm.isStreaming, false);
});
