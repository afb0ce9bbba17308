// The pure reducer: (view model, action) → (new view model, effects). No vscode, no DOM, no
// I/O: the extension host runs it to answer `state()` and to decide effects (e.g. a seq gap →
// `pi/replay`); the webview runs the same code on the same actions to render. Deterministic:
// ids come from a counter inside the model, never from clocks or randomness.
//
// This module composes the per-domain reducers under reduce/: ordering.ts (pi/event order and
// replay), events.ts (the run's lifecycle and session updates), run_end.ts (the run is over),
// messages.ts (the streaming transcript), transcript.ts (whole sessions, entry ids), state.ts
// (pi/state), requests.ts (permission and question cards); parse.ts reads wire values,
// draft.ts holds one reduction.

import type { ViewModel } from './types';
import type { Action, Effect, Result } from './reduce/actions';
import { Draft } from './reduce/draft';
import { endRunLocally } from './reduce/run_end';
import { acceptEvent, applyReplay } from './reduce/ordering';
import { normQueue, notice } from './reduce/parse';
import { askPermission, askQuestion, settlePermission, settleQuestion } from './reduce/requests';
import { applyState } from './reduce/state';
import { assignEntryIds, loadSession } from './reduce/transcript';

export type { Action, Effect, Result, WireNotification } from './reduce/actions';
export { initialState } from './initial';
export { fmtTokens, normUsage } from './reduce/parse';

export function reduce(prev: ViewModel, action: Action): Result {
  const d = new Draft(prev);
  switch (action.type) {
    case 'server':
      d.vm.server = action.server;
      break;
    case 'features':
      d.vm.features = { ...d.vm.features, ...action.features };
      break;
    case 'event':
      acceptEvent(d, action.note);
      break;
    case 'replay':
      applyReplay(d, action);
      break;
    case 'beginSession':
      // Switching sessions: accept this session's events (a resume sends queue_update /
      // review_update before it answers) while its transcript loads.
      if (d.vm.sessionId !== action.sessionId) loadSession(d, action.sessionId, [], []);
      break;
    case 'loadSession':
      loadSession(d, action.sessionId, action.messages, action.entryIds ?? []);
      if (action.afterSeq !== undefined) d.vm.lastSeq = action.afterSeq;
      break;
    case 'state':
      applyState(d, action.state);
      break;
    case 'queue':
      d.vm.queue = normQueue(action.queue);
      break;
    case 'waiting':
      d.vm.waiting = action.waiting;
      break;
    case 'localQueue': {
      const entry = { id: d.newId('local:'), text: action.text };
      const q = d.vm.queue;
      d.vm.queue =
        action.deliverAs === 'steer'
          ? { steering: [...q.steering, entry], followUp: q.followUp }
          : { steering: q.steering, followUp: [...q.followUp, entry] };
      break;
    }
    case 'review':
      d.vm.review = action.files.filter((f) => f.hunks.length > 0);
      break;
    case 'checkpoints':
      d.vm.checkpoints = action.checkpoints;
      assignEntryIds(d, action.checkpoints);
      break;
    case 'entryIds':
      assignEntryIds(d, action.users);
      break;
    case 'permissionAsk':
      askPermission(d, action.requestKey, action.params);
      break;
    case 'permissionDone':
      settlePermission(d, action.requestKey, action.answer, action.withdrawn === true);
      break;
    case 'questionAsk':
      askQuestion(d, action.requestKey, action.params);
      break;
    case 'questionDone':
      settleQuestion(d, action.requestKey, action.answer, action.status);
      break;
    case 'notice':
      d.push({ ...notice(d, action.level, action.topic, action.text), restoreId: action.restoreId });
      break;
    case 'disconnected':
      endRunLocally(d, action.reason);
      d.vm.lastSeq = null;
      d.vm.replayAfter = null;
      d.vm.held = [];
      break;
  }
  return d.result();
}

/** Apply many actions (used to rebuild the webview and in tests). */
export function reduceAll(vm: ViewModel, actions: Action[]): Result {
  const effects: Effect[] = [];
  for (const a of actions) {
    const r = reduce(vm, a);
    vm = r.vm;
    effects.push(...r.effects);
  }
  return { vm, effects };
}
