// The panel. It holds a copy of the view model, advanced by the same reducer as the host on
// the same actions, and repaints at most once per animation frame: only items whose rev
// changed are re-rendered, and only the newest items are in the DOM. The views are
// components of their own: header.ts (model, meters, server banner, MCP), transcript.ts,
// review.ts (changed files), queue.ts, plan.ts, composer.ts (input, completion, images),
// sessions.ts (the session browser), toasts.ts; state.ts is what they share.

import { reduceAll } from '../model/reducer';
import type { HostMessage } from '../protocol/messages';
import { contextEl, paintContext, resources } from './context';
import { completion, composer, composerDeps, input, insertAtCursor, paintComposer, setInput } from './composer';
import { banner, header, mcpEl, paintBanner, paintHeader, paintMcp } from './header';
import { paintPlan, planDeps } from './plan';
import { paintQueue } from './queue';
import { changed, paintChanged, reviewDeps } from './review';
import { overlay, showSessions } from './sessions';
import { app, onInvalidate, post } from './state';
import { toast, toasts } from './toasts';
import { paintTranscript, resetTranscript, transcript } from './transcript';

const root = document.getElementById('app') as HTMLElement;
root.append(header, banner, mcpEl, overlay, transcript, changed, contextEl, composer, toasts);

let dirty = true;
let framePending = false;
/** A key was pressed since the last frame: that frame is the key's (see paint). */
let keyPending = false;
document.addEventListener('keydown', () => {
  keyPending = true;
}, true);

function schedule(): void {
  if (framePending) return;
  framePending = true;
  requestAnimationFrame(() => {
    framePending = false;
    if (dirty) {
      dirty = false;
      paint();
    }
  });
}

onInvalidate(() => {
  dirty = true;
  schedule();
});

/** Parts other than the transcript repaint only when what they show changed. */
const lastKeys: Record<string, unknown[]> = {};
function changedSince(part: string, deps: unknown[]): boolean {
  const prev = lastKeys[part];
  if (prev && prev.length === deps.length && prev.every((v, i) => v === deps[i])) return false;
  lastKeys[part] = deps;
  return true;
}

function paint(): void {
  const v = app.vm;
  if (changedSince('header', [v.features.models, app.models, v.model, v.thinkingLevel, v.contextTokens, v.contextWindow, v.usage, app.settings])) paintHeader();
  if (changedSince('banner', [v.server])) paintBanner();
  if (changedSince('mcp', [v.mcp])) paintMcp();
  // Input first: the frame right after a key shows the key; the transcript (a streaming
  // answer's Markdown) catches up in the next frame, about 16 ms later.
  if (keyPending) {
    keyPending = false;
    dirty = true;
    schedule();
  } else {
    paintTranscript();
  }
  if (changedSince('changed', reviewDeps())) paintChanged();
  if (changedSince('queue', [v.queue, v.features.queue, v.isStreaming])) paintQueue();
  if (changedSince('composer', composerDeps())) paintComposer();
  if (changedSince('plan', planDeps())) paintPlan();
}

// ------------------------------------------------------------------ messages from the host

window.addEventListener('message', (e: MessageEvent) => {
  const msg = e.data as HostMessage;
  if (!msg || typeof msg !== 'object' || typeof (msg as { type?: unknown }).type !== 'string') return;
  switch (msg.type) {
    case 'snapshot':
      app.vm = msg.vm;
      app.settings = msg.settings;
      resetTranscript();
      break;
    case 'actions':
      app.vm = reduceAll(app.vm, msg.actions).vm;
      break;
    case 'sessions':
      showSessions(msg.sessions);
      return;
    case 'models':
      app.models = msg.models;
      break;
    case 'files':
      completion.show(msg.requestId, msg.files);
      return;
    case 'symbols':
      completion.showSymbols(msg.requestId, msg.symbols);
      return;
    case 'insert':
      insertAtCursor(msg.text);
      if (msg.focus) input.focus();
      return;
    case 'setInput':
      setInput(msg.text);
      return;
    case 'settings':
      app.settings = msg.settings;
      break;
    case 'toast':
      toast(msg.level, msg.text);
      return;
    case 'resources':
      resources.commands = msg.commands;
      resources.context = msg.context;
      paintContext();
      return;
  }
  dirty = true;
  schedule();
});

post({ type: 'ready' });
paint();
