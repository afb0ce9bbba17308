// The transcript: the newest items of the view model, one element per item, re-rendered only
// when the item's rev changed; older items behind "Show earlier". It stays pinned to the
// bottom while the user has not scrolled up.

import type { Item } from '../model/types';
import { clear, h } from './dom';
import type { Ctx, Rendered } from './ctx';
import { renderItem } from './items';
import { app, invalidate, post } from './state';

const WINDOW_STEP = 150;
/** Milliseconds of new items rendered per frame (the rest follow in the next frames). */
const RENDER_BUDGET_MS = 8;

let windowSize = WINDOW_STEP;
const expanded = new Set<string>();
const rendered = new Map<string, Rendered>();
let lastOrderKey = '';
/** When the streaming answer was last rendered, and how long that took. */
let lastStreamAt = 0;
let lastStreamMs = 0;
const STREAM_BUDGET_MS = 8;
const STREAM_SLOW_GAP_MS = 100;

const earlier = h('button.link.earlier', { 'data-testid': 'show-earlier', hidden: true });
const list = h('div.list');
const empty = h(
  'div.empty',
  { 'data-testid': 'empty' },
  h('p', {}, h('strong', { text: 'pi' }), ' reads, edits and runs code in this workspace. Ask it something.'),
  h(
    'ul.muted',
    {},
    h('li', { text: 'While it works, Enter steers, Alt+Enter queues a follow-up, Ctrl+Enter interrupts.' }),
    h('li', { text: '@ mentions a file; Ctrl+Alt+K in the editor adds the selection; / lists commands.' }),
    h('li', { text: 'Edits land in your editor: Keep or Undo each change from its CodeLens.' }),
  ),
  h(
    'p',
    {},
    h('button.link', { text: 'Settings', onclick: () => post({ type: 'openSettings' }) }),
    h('button.link', { text: 'Set API key', onclick: () => post({ type: 'setApiKey' }) }),
    h('button.link', { text: 'Sessions', onclick: () => post({ type: 'listSessions' }) }),
  ),
);
/** Prompts held until the server runs (src/controller/hold.ts), after the transcript. */
const waitingEl = h('div.waiting');
export const transcript = h('div.transcript', { 'data-testid': 'transcript', role: 'log', 'aria-live': 'polite' }, earlier, empty, list, waitingEl);

earlier.addEventListener('click', () => {
  windowSize += WINDOW_STEP;
  invalidate();
});

// Copy buttons in code blocks (delegated: rendered Markdown never carries handlers).
transcript.addEventListener('click', (e) => {
  const t = e.target as HTMLElement;
  if (t.dataset.copy) {
    const code = t.parentElement?.querySelector('code')?.textContent ?? '';
    post({ type: 'copy', text: code });
    t.textContent = 'Copied';
    setTimeout(() => (t.textContent = 'Copy'), 1200);
  }
});

const ctx: Ctx = {
  post,
  get features() {
    return app.vm.features;
  },
  expanded,
  toggle(id: string) {
    if (expanded.has(id)) expanded.delete(id);
    else expanded.add(id);
    const base = id.split(':think:')[0].replace(/:nodiff$/, '');
    const r = rendered.get(base);
    if (r) r.rev = -1; // force a re-render of that item
    invalidate();
  },
};

// Stick to the bottom while the user has not scrolled up. The view is pinned from a
// ResizeObserver, which runs after the browser's own layout of the frame: painting never
// reads layout (a forced synchronous layout of the whole transcript per streamed frame was
// the largest cost while an answer streams). Off-screen items change height as they are laid
// out (content-visibility), so those size changes re-pin the view too.
let stick = true;
transcript.addEventListener('scroll', () => {
  stick = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 40;
});
new ResizeObserver(() => {
  // the welcome text (no items yet) is read from its top, never pinned to its bottom
  if (stick) transcript.scrollTop = empty.hidden ? transcript.scrollHeight : 0;
}).observe(list);

/** A new snapshot of the view model: render everything again. */
export function resetTranscript(): void {
  rendered.clear();
  clear(list);
  lastOrderKey = '';
}

let paintedWaiting: unknown = null;

function paintWaiting(): void {
  const waiting = app.vm.waiting;
  if (waiting === paintedWaiting) return;
  paintedWaiting = waiting;
  clear(waitingEl);
  for (const w of waiting) {
    waitingEl.append(
      h(
        'div.item.user',
        { 'data-testid': 'message-waiting' },
        h('div.bubble', { text: w.text }),
        h('div.meta', { text: 'waiting: will send when the server is ready' }),
      ),
    );
  }
}

export function paintTranscript(): void {
  const items = app.vm.items;
  paintWaiting();
  empty.hidden = items.length > 0 || app.vm.waiting.length > 0;
  const start = Math.max(0, items.length - windowSize);
  earlier.hidden = start === 0;
  earlier.textContent = `Show ${Math.min(WINDOW_STEP, start)} earlier of ${start}`;
  // A different transcript (session switch, reload): start over. Items leaving the window at
  // the top are removed below; new ones are inserted in order.
  const orderKey = `${app.vm.sessionId}:${items[0]?.id ?? ''}`;
  if (orderKey !== lastOrderKey) {
    resetTranscript();
    lastOrderKey = orderKey;
  }
  // Bottom up, so what is on screen comes first. Rendering new items stops when this frame's
  // budget is spent; the older ones follow in the next frames (a resumed session of
  // thousands of messages is interactive at once, its window fills in behind the view).
  const deadline = performance.now() + RENDER_BUDGET_MS;
  const visible = new Set<string>();
  let nextEl: HTMLElement | null = null; // the element of the nearest younger rendered item
  let deferred = false;
  for (let i = items.length - 1; i >= start; i--) {
    const item: Item = items[i];
    visible.add(item.id);
    const r = rendered.get(item.id);
    if (r && r.rev === item.rev) {
      nextEl = r.el;
      continue;
    }
    if (!r && nextEl && performance.now() > deadline) {
      deferred = true;
      continue;
    }
    // A streaming answer whose last render was slow (a loaded machine stretches it) is
    // re-rendered at most every STREAM_SLOW_GAP_MS, so the input's frames keep their time.
    const streaming = r !== undefined && item.kind === 'assistant' && item.streaming;
    if (streaming && lastStreamMs > STREAM_BUDGET_MS && performance.now() - lastStreamAt < STREAM_SLOW_GAP_MS) {
      deferred = true;
      nextEl = r.el;
      continue;
    }
    const t0 = performance.now();
    const next = renderItem(item, ctx, r);
    if (streaming) {
      lastStreamAt = performance.now();
      lastStreamMs = lastStreamAt - t0;
    }
    if (r && r.el !== next.el) r.el.replaceWith(next.el);
    else if (!r) list.insertBefore(next.el, nextEl);
    rendered.set(item.id, next);
    nextEl = next.el;
  }
  if (rendered.size > visible.size) {
    for (const [id, r] of rendered) {
      if (!visible.has(id)) {
        r.el.remove();
        rendered.delete(id);
      }
    }
  }
  if (deferred) invalidate();
}
