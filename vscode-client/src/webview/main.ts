// The panel. It holds a copy of the view model, advanced by the same reducer as the host on
// the same actions, and repaints at most once per animation frame: only items whose rev
// changed are re-rendered, and only the newest WINDOW items are in the DOM.

import { mentionQueryAt } from '../mention';
import { initialState, reduceAll } from '../model/reducer';
import type { Item, ViewModel } from '../model/types';
import type { HostMessage, ModelRow, PanelSettings, SessionRow } from '../protocol/messages';
import { clear, fmtCost, fmtTokens, h, relTime } from './dom';
import { type Ctx, type Rendered, renderItem } from './items';

declare function acquireVsCodeApi(): {
  postMessage(m: unknown): void;
  getState(): unknown;
  setState(s: unknown): void;
};

const vscode = acquireVsCodeApi();
const WINDOW_STEP = 150;

interface Persisted {
  draft?: string;
  /** The plan checklist above the input is folded to one line. */
  planCollapsed?: boolean;
}

let vm: ViewModel = initialState();
let settings: PanelSettings = { enterAction: 'steer', hasApiKey: false, edits: 'apply' };
let models: ModelRow[] = [];
let windowSize = WINDOW_STEP;
const expanded = new Set<string>();
const rendered = new Map<string, Rendered>();
let lastOrderKey = '';
let dirty = true;
let framePending = false;
let sessions: SessionRow[] | null = null;
let sessionFilter = '';
let showChanged = true;

const post = (msg: Record<string, unknown>) => vscode.postMessage(msg);
const persisted = (vscode.getState() as Persisted | undefined) ?? {};

// ------------------------------------------------------------------ layout

const app = document.getElementById('app') as HTMLElement;
const header = h('div.header', { 'data-testid': 'header' });
const banner = h('div.banner', { 'data-testid': 'banner' });
const mcpEl = h('details.mcp', { 'data-testid': 'mcp-servers', hidden: true });
const overlay = h('div.overlay', { 'data-testid': 'sessions', hidden: true });
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
const transcript = h('div.transcript', { 'data-testid': 'transcript', role: 'log', 'aria-live': 'polite' }, earlier, empty, list);
const changed = h('div.changed', { 'data-testid': 'changed-files' });
const queueEl = h('div.queue', { 'data-testid': 'queue' });
const planEl = h('div.plan', { 'data-testid': 'plan', hidden: true });
const modeBtn = h('button.link', { 'data-testid': 'mode-toggle' });
const completion = h('div.completion', { role: 'listbox', hidden: true });
const imagesEl = h('div.images', { hidden: true });
const input = h('textarea.prompt', {
  'data-testid': 'prompt',
  rows: 3,
  placeholder: 'Ask pi… (@ file, / commands, paste images)',
  'aria-label': 'Message pi',
});
const sendBtn = h('button.primary', { 'data-testid': 'send', text: 'Send' });
const stopBtn = h('button.secondary', { 'data-testid': 'stop', text: 'Stop', title: 'Stop the run (the queue is kept)', hidden: true });
const hint = h('div.hint.muted');
const toasts = h('div.toasts');
const composer = h(
  'div.composer',
  {},
  planEl,
  queueEl,
  completion,
  imagesEl,
  input,
  h('div.composer-bar', {}, hint, h('div.buttons', {}, modeBtn, stopBtn, sendBtn)),
);
app.append(header, banner, mcpEl, overlay, transcript, changed, composer, toasts);
input.value = persisted.draft ?? '';
let planCollapsed = persisted.planCollapsed === true;

earlier.addEventListener('click', () => {
  windowSize += WINDOW_STEP;
  dirty = true;
  schedule();
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

// ------------------------------------------------------------------ messages from the host

window.addEventListener('message', (e: MessageEvent) => {
  const msg = e.data as HostMessage;
  if (!msg || typeof msg !== 'object' || typeof (msg as { type?: unknown }).type !== 'string') return;
  switch (msg.type) {
    case 'snapshot':
      vm = msg.vm;
      settings = msg.settings;
      rendered.clear();
      clear(list);
      lastOrderKey = '';
      break;
    case 'actions':
      vm = reduceAll(vm, msg.actions).vm;
      break;
    case 'sessions':
      sessions = msg.sessions;
      overlay.hidden = false;
      renderSessions();
      return;
    case 'models':
      models = msg.models;
      break;
    case 'files':
      showCompletion(msg.requestId, msg.files);
      return;
    case 'insert':
      insertAtCursor(msg.text);
      if (msg.focus) input.focus();
      return;
    case 'setInput':
      input.value = msg.text;
      saveDraft();
      input.focus();
      return;
    case 'settings':
      settings = msg.settings;
      break;
    case 'toast':
      toast(msg.level, msg.text);
      return;
  }
  dirty = true;
  schedule();
});

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

function toast(level: string, text: string): void {
  const t = h(`div.toast.${level}` as 'div', { role: 'status', text });
  toasts.append(t);
  setTimeout(() => t.remove(), 6000);
}

// ------------------------------------------------------------------ painting

const ctx: Ctx = {
  post,
  get features() {
    return vm.features;
  },
  expanded,
  toggle(id: string) {
    if (expanded.has(id)) expanded.delete(id);
    else expanded.add(id);
    const base = id.split(':think:')[0].replace(/:nodiff$/, '');
    const r = rendered.get(base);
    if (r) r.rev = -1; // force a re-render of that item
    dirty = true;
    schedule();
  },
};

/** Parts other than the transcript repaint only when what they show changed. */
const lastKeys: Record<string, unknown[]> = {};
function changedSince(part: string, deps: unknown[]): boolean {
  const prev = lastKeys[part];
  if (prev && prev.length === deps.length && prev.every((v, i) => v === deps[i])) return false;
  lastKeys[part] = deps;
  return true;
}

function paint(): void {
  const v = vm;
  if (changedSince('header', [v.features.models, models, v.model, v.thinkingLevel, v.contextTokens, v.contextWindow, v.usage, settings])) paintHeader();
  if (changedSince('banner', [v.server])) paintBanner();
  if (changedSince('mcp', [v.mcp])) paintMcp();
  paintTranscript();
  if (changedSince('changed', [v.review, showChanged])) paintChanged();
  if (changedSince('queue', [v.queue, v.features.queue, v.isStreaming])) paintQueue();
  if (changedSince('composer', [v.isStreaming, v.compacting, settings, v.questions.length])) paintComposer();
  if (changedSince('plan', [v.todo, v.mode, v.isStreaming, v.planReady, planCollapsed])) paintPlan();
}

// Stick to the bottom while the user has not scrolled up; off-screen items change height as
// they are laid out (content-visibility), so size changes re-pin the view too.
let stick = true;
transcript.addEventListener('scroll', () => {
  stick = transcript.scrollHeight - transcript.scrollTop - transcript.clientHeight < 40;
});
new ResizeObserver(() => {
  if (stick) transcript.scrollTop = transcript.scrollHeight;
}).observe(list);

function paintTranscript(): void {
  const atBottom = stick;
  const items = vm.items;
  empty.hidden = items.length > 0;
  const start = Math.max(0, items.length - windowSize);
  earlier.hidden = start === 0;
  earlier.textContent = `Show ${Math.min(WINDOW_STEP, start)} earlier of ${start}`;
  // A different transcript (session switch, reload): start over. Items leaving the window at
  // the top are removed below; new ones are inserted in order.
  const orderKey = `${vm.sessionId}:${items[0]?.id ?? ''}`;
  if (orderKey !== lastOrderKey) {
    rendered.clear();
    clear(list);
    lastOrderKey = orderKey;
  }
  const visible = new Set<string>();
  let prevEl: HTMLElement | null = null;
  for (let i = start; i < items.length; i++) {
    const item: Item = items[i];
    visible.add(item.id);
    const r = rendered.get(item.id);
    if (r && r.rev === item.rev) {
      prevEl = r.el;
      continue;
    }
    const next = renderItem(item, ctx, r);
    if (r && r.el !== next.el) r.el.replaceWith(next.el);
    else if (!r) {
      if (prevEl) prevEl.after(next.el);
      else list.prepend(next.el);
    }
    rendered.set(item.id, next);
    prevEl = next.el;
  }
  if (rendered.size > visible.size) {
    for (const [id, r] of rendered) {
      if (!visible.has(id)) {
        r.el.remove();
        rendered.delete(id);
      }
    }
  }
  if (atBottom) transcript.scrollTop = transcript.scrollHeight;
}

function paintHeader(): void {
  clear(header);
  const top = h('div.header-row');
  const bottom = h('div.header-row.small');
  header.append(top, bottom);
  // Model picker (pi/models) or the model's name.
  if (vm.features.models && models.length > 0) {
    const sel = h('select.model', { 'data-testid': 'model-picker', title: 'Model for this session' });
    const groups = new Map<string, HTMLOptGroupElement>();
    for (const m of models) {
      let g = groups.get(m.provider);
      if (!g) {
        g = h('optgroup', { label: m.provider });
        groups.set(m.provider, g);
        sel.append(g);
      }
      const o = h('option', { value: `${m.provider}\u0000${m.id}`, text: m.name || m.id, title: `${m.id} (${m.provider})` });
      if (vm.model && m.id === vm.model.id && (!vm.model.provider || vm.model.provider === m.provider)) o.selected = true;
      g.append(o);
    }
    if (vm.model && !models.some((m) => m.id === vm.model!.id)) {
      sel.prepend(h('option', { value: `\u0000${vm.model.id}`, text: vm.model.name || vm.model.id, selected: true }));
    }
    sel.addEventListener('change', () => {
      const [provider, model] = sel.value.split('\u0000');
      post(provider ? { type: 'setModel', provider, model } : { type: 'setModel', model });
    });
    top.append(sel);
  } else if (vm.model) {
    top.append(h('span.model-name', { 'data-testid': 'model-name', title: vm.model.provider ? `${vm.model.id} (${vm.model.provider})` : vm.model.id, text: vm.model.name || vm.model.id }));
  }
  const think = h('select.thinking', { 'data-testid': 'thinking', title: 'Thinking level' });
  for (const lvl of ['off', 'minimal', 'low', 'medium', 'high', 'xhigh']) {
    think.append(h('option', { value: lvl, text: `thinking: ${lvl}`, selected: (vm.thinkingLevel ?? 'off') === lvl }));
  }
  think.addEventListener('change', () => post({ type: 'setThinking', level: think.value }));
  bottom.append(think);
  const edits = h('select.edits', { 'data-testid': 'edits-mode', title: 'How edits arrive: at once (then Keep / Undo), or after you confirm each' });
  edits.append(
    h('option', { value: 'apply', text: 'edits: apply', selected: settings.edits === 'apply' }),
    h('option', { value: 'confirm', text: 'edits: confirm', selected: settings.edits === 'confirm' }),
  );
  edits.addEventListener('change', () => post({ type: 'setEdits', mode: edits.value }));
  bottom.append(edits);
  // Context meter and session cost.
  const used = vm.contextTokens;
  const win = vm.contextWindow;
  const meter = h('span.meter', { 'data-testid': 'context-meter' });
  if (used !== null && win) {
    const pct = Math.min(100, Math.round((used / win) * 100));
    meter.title = `Context: ${used} of ${win} tokens (${pct}%)`;
    const fill = h('span.meter-fill', { 'data-level': pct > 85 ? 'high' : pct > 60 ? 'mid' : 'low' });
    fill.style.width = `${pct}%`; // CSSOM, allowed under the CSP (inline style attributes are not)
    meter.append(h('span.meter-bar', {}, fill));
    meter.append(h('span.meter-text', { text: `${fmtTokens(used)}/${fmtTokens(win)}` }));
  } else if (win) {
    meter.title = `Context window: ${win} tokens`;
    meter.append(h('span.meter-text', { text: `–/${fmtTokens(win)}` }));
  }
  bottom.append(meter);
  const u = vm.usage;
  if (u.input + u.output > 0) {
    bottom.append(
      h('span.cost.muted', {
        'data-testid': 'session-usage',
        title: `Session: ${u.input} input, ${u.output} output, ${u.cacheRead} cache read, ${u.cacheWrite} cache write tokens`,
        text: `${fmtTokens(u.input + u.cacheRead + u.cacheWrite)}↑ ${fmtTokens(u.output)}↓${u.cost > 0 ? ` ${fmtCost(u.cost)}` : ''}`,
      }),
    );
  }
  top.append(
    h('span.spacer'),
    h('button.icon', { 'data-testid': 'history', title: 'Session history', text: '☰', onclick: () => post({ type: 'listSessions' }) }),
    h('button.icon', { 'data-testid': 'new-session', title: 'New session', text: '+', onclick: () => post({ type: 'newSession' }) }),
  );
}

/** The MCP servers (docs/protocol.md §14): state, tool count, message, a Restart button each. */
function paintMcp(): void {
  const open = mcpEl.open;
  clear(mcpEl);
  const servers = vm.mcp;
  mcpEl.hidden = servers.length === 0;
  if (servers.length === 0) return;
  const ready = servers.filter((s) => s.state === 'ready').length;
  const failed = servers.some((s) => s.state === 'failed');
  mcpEl.append(
    h('summary', {
      'data-testid': 'mcp-summary',
      text: `MCP servers: ${ready}/${servers.length} ready${failed ? ' · some failed' : ''}`,
    }),
  );
  for (const s of servers) {
    const tools = s.state === 'ready' ? ` · ${s.toolCount} tool${s.toolCount === 1 ? '' : 's'}` : '';
    mcpEl.append(
      h(
        'div.mcp-server',
        { 'data-testid': 'mcp-server', 'data-state': s.state, title: `${s.source}: ${s.target}` },
        h('span.mcp-name', { text: s.name }),
        h('span.mcp-state', { text: `${s.state}${tools}${s.message ? `: ${s.message}` : ''}` }),
        h('button.link', {
          text: 'Restart',
          'data-testid': 'mcp-restart',
          onclick: () => post({ type: 'mcpRestart', name: s.name }),
        }),
      ),
    );
  }
  mcpEl.open = open || failed;
}

function paintBanner(): void {
  clear(banner);
  const s = vm.server;
  banner.hidden = s.status === 'running';
  if (s.status === 'running') return;
  banner.dataset.status = s.status;
  const text =
    s.status === 'starting'
      ? 'Starting the pi server…'
      : s.status === 'missing'
        ? s.message ?? 'The pi-lsp server was not found.'
        : s.message ?? `The pi server is ${s.status}.`;
  banner.append(h('div', { 'data-testid': 'server-status', text }));
  if (s.status !== 'starting') {
    banner.append(
      h(
        'div.buttons',
        {},
        h('button.primary', { text: 'Retry', onclick: () => post({ type: 'retryServer' }) }),
        h('button.secondary', { text: 'Settings', onclick: () => post({ type: 'openSettings' }) }),
        h('button.secondary', { text: 'Set API key', onclick: () => post({ type: 'setApiKey' }) }),
      ),
    );
  }
}

function renderSessions(): void {
  clear(overlay);
  const search = h('input.search', { type: 'search', placeholder: 'Search sessions', value: sessionFilter, 'data-testid': 'session-search' });
  const rows = h('div.session-list');
  const fill = () => {
    clear(rows);
    const q = sessionFilter.toLowerCase();
    const shown = (sessions ?? []).filter((s) => !q || s.title.toLowerCase().includes(q) || s.sessionId.includes(q));
    if (shown.length === 0) rows.append(h('div.muted', { text: 'No sessions.' }));
    for (const s of shown) {
      rows.append(
        h(
          'button.session-row',
          {
            'data-testid': 'session-row',
            'data-current': String(s.sessionId === vm.sessionId),
            onclick: () => {
              overlay.hidden = true;
              post({ type: 'resumeSession', sessionId: s.sessionId });
            },
          },
          h('span.session-title', { text: s.title || '(untitled)' }),
          h('span.muted', { text: `${relTime(s.updatedAt)} · ${s.messageCount} messages${s.isStreaming ? ' · running' : ''}` }),
        ),
      );
    }
  };
  search.addEventListener('input', () => {
    sessionFilter = search.value;
    fill();
  });
  search.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') overlay.hidden = true;
  });
  overlay.append(
    h(
      'div.overlay-head',
      {},
      h('strong', { text: 'Sessions' }),
      h('span.spacer'),
      h('button.secondary', { text: 'New session', onclick: () => ((overlay.hidden = true), post({ type: 'newSession' })) }),
      h('button.icon', { title: 'Close', text: '×', onclick: () => (overlay.hidden = true) }),
    ),
    search,
    rows,
  );
  fill();
  search.focus();
}

function paintChanged(): void {
  clear(changed);
  const files = vm.review;
  changed.hidden = files.length === 0;
  if (files.length === 0) return;
  const total = files.reduce((n, f) => n + f.hunks.length, 0);
  const head = h(
    'div.changed-head',
    {},
    h('button.link', { text: `${showChanged ? '▾' : '▸'} Changed files (${files.length}, ${total} change${total === 1 ? '' : 's'} to review)`, onclick: () => ((showChanged = !showChanged), paintChanged()) }),
    h('span.spacer'),
    h('button.link', { 'data-testid': 'keep-all', text: 'Keep all', onclick: () => decideAll('keep') }),
    h('button.link', { 'data-testid': 'undo-all', text: 'Undo all', onclick: () => decideAll('undo') }),
  );
  changed.append(head);
  if (!showChanged) return;
  for (const f of files) {
    let add = 0;
    let del = 0;
    for (const hk of f.hunks) {
      add += hk.newText ? hk.newText.split('\n').length - (hk.newText.endsWith('\n') ? 1 : 0) : 0;
      del += hk.oldText ? hk.oldText.split('\n').length - (hk.oldText.endsWith('\n') ? 1 : 0) : 0;
    }
    const name = decodeURIComponent(f.uri.replace(/^file:\/\//, '')).split('/').slice(-2).join('/');
    const row = h(
      'div.changed-file',
      { 'data-testid': 'changed-file', 'data-uri': f.uri },
      h('button.link.file', { text: name, title: f.uri, onclick: () => post({ type: 'openFile', uri: f.uri }) }),
      h('span.add', { text: `+${add}` }),
      h('span.del', { text: `−${del}` }),
      h('span.spacer'),
      h('button.link', { 'data-testid': 'file-keep', text: 'Keep', onclick: () => post({ type: 'review', decisions: f.hunks.map((x) => ({ hunkId: x.id, decision: 'keep' })) }) }),
      h('button.link', { 'data-testid': 'file-undo', text: 'Undo', onclick: () => post({ type: 'review', decisions: f.hunks.map((x) => ({ hunkId: x.id, decision: 'undo' })) }) }),
    );
    changed.append(row);
    for (const hk of f.hunks) {
      changed.append(
        h(
          'div.hunk-row',
          { 'data-testid': 'hunk', 'data-hunk': hk.id },
          h('button.link', { text: `line ${hk.range.start.line + 1}`, onclick: () => post({ type: 'openHunk', uri: f.uri, hunkId: hk.id }) }),
          h('span.muted.hunk-preview', { text: (hk.newText || hk.oldText).split('\n')[0].slice(0, 60) }),
          h('span.spacer'),
          h('button.link', { 'data-testid': 'hunk-keep', text: 'Keep', onclick: () => post({ type: 'review', decisions: [{ hunkId: hk.id, decision: 'keep' }] }) }),
          h('button.link', { 'data-testid': 'hunk-undo', text: 'Undo', onclick: () => post({ type: 'review', decisions: [{ hunkId: hk.id, decision: 'undo' }] }) }),
        ),
      );
    }
  }
}

function decideAll(decision: 'keep' | 'undo'): void {
  post({ type: 'review', decisions: vm.review.flatMap((f) => f.hunks.map((x) => ({ hunkId: x.id, decision }))) });
}

function paintQueue(): void {
  clear(queueEl);
  const q = vm.queue;
  const entries = [
    ...q.steering.map((e) => ({ ...e, kind: 'steer' as const })),
    ...q.followUp.map((e) => ({ ...e, kind: 'followUp' as const })),
  ];
  queueEl.hidden = entries.length === 0;
  if (entries.length === 0) return;
  queueEl.append(h('div.queue-head.muted', { text: `Queued (${entries.length}) — delivered ${vm.isStreaming ? 'during this run' : 'with the next run'}` }));
  for (const e of entries) {
    const local = e.id.startsWith('local:');
    const row = h('div.queue-row', { 'data-testid': 'queue-item', 'data-kind': e.kind });
    row.append(h('span.queue-kind', { text: e.kind === 'steer' ? 'steer' : 'follow-up' }), h('span.queue-text', { text: e.text }));
    if (!local && vm.features.queue) {
      row.append(
        h('button.link', {
          'data-testid': 'queue-edit',
          text: 'Edit',
          onclick: () => {
            const ta = h('textarea.queue-edit', { rows: 2 });
            ta.value = e.text;
            const save = h('button.link', { text: 'Save', onclick: () => post({ type: 'queue', op: 'edit', id: e.id, text: ta.value }) });
            row.replaceChildren(ta, save, h('button.link', { text: 'Cancel', onclick: () => paintQueue() }));
            ta.focus();
          },
        }),
        ...(e.kind === 'followUp'
          ? [h('button.link', { 'data-testid': 'queue-send-now', text: 'Send now', title: 'Deliver at the next turn boundary (as steering)', onclick: () => post({ type: 'queue', op: 'promote', id: e.id }) })]
          : []),
        h('button.link', { 'data-testid': 'queue-remove', text: 'Delete', onclick: () => post({ type: 'queue', op: 'remove', id: e.id }) }),
      );
    }
    queueEl.append(row);
  }
}

// ------------------------------------------------------------------ plan and todo list

const MARK: Record<string, string> = { completed: '☑', in_progress: '◐', pending: '☐' };

/** The mode and the agent's checklist, pinned above the input (folded to one line on demand;
 * the fold survives reloads). In plan mode, once a run has planned, "Start with this plan"
 * switches to act mode, which tells the agent to carry the plan out. */
function paintPlan(): void {
  clear(planEl);
  const todo = vm.todo;
  const planning = vm.mode === 'plan';
  modeBtn.textContent = planning ? 'Plan mode ✓' : 'Plan mode';
  modeBtn.title = planning
    ? 'The agent can only read and plan. Click to leave plan mode.'
    : 'Plan first: the agent can only read, and writes a plan you approve';
  modeBtn.setAttribute('aria-pressed', String(planning));
  planEl.hidden = todo.length === 0 && !planning;
  planEl.dataset.mode = vm.mode;
  if (planEl.hidden) return;
  const done = todo.filter((t) => t.status === 'completed').length;
  const head = h('div.plan-head');
  if (todo.length > 0) {
    head.append(
      h('button.link', {
        'data-testid': 'plan-toggle',
        'aria-expanded': String(!planCollapsed),
        text: `${planCollapsed ? '▸' : '▾'} Plan ${done}/${todo.length}`,
        onclick: () => {
          planCollapsed = !planCollapsed;
          saveDraft();
          paintPlan();
        },
      }),
    );
    if (planCollapsed) {
      const current = todo.find((t) => t.status === 'in_progress') ?? todo.find((t) => t.status === 'pending');
      if (current) head.append(h('span.muted', { text: current.content }));
    }
  }
  head.append(h('span.grow'));
  if (planning) head.append(h('span.plan-mode', { 'data-testid': 'mode', text: 'plan mode · read-only' }));
  if (planning && !vm.isStreaming) {
    head.append(
      h(`button.${vm.planReady ? 'primary' : 'secondary'}` as 'button', {
        'data-testid': 'start-plan',
        text: vm.planReady ? 'Start with this plan' : 'Leave plan mode',
        title: vm.planReady ? 'Switch to act mode: pi carries out the plan it wrote' : 'Switch to act mode',
        onclick: () => post({ type: 'setMode', mode: 'act' }),
      }),
    );
  }
  planEl.append(head);
  if (todo.length > 0 && !planCollapsed) {
    const ul = h('ul.plan-list', { 'data-testid': 'plan-list' });
    for (const t of todo) {
      ul.append(h('li', { 'data-status': t.status, 'data-testid': 'plan-item', text: `${MARK[t.status] ?? '☐'} ${t.content}` }));
    }
    planEl.append(ul);
  }
}

modeBtn.addEventListener('click', () => post({ type: 'setMode', mode: vm.mode === 'plan' ? 'act' : 'plan' }));

// ------------------------------------------------------------------ composer

type Gesture = 'steer' | 'followUp' | 'interrupt';
const LABEL: Record<Gesture, string> = { steer: 'Steer', followUp: 'Follow-up', interrupt: 'Interrupt' };

function gestureFor(e: KeyboardEvent | null): Gesture {
  const def = settings.enterAction;
  if (!e) return def;
  if (e.ctrlKey || e.metaKey) return 'interrupt';
  if (e.altKey) return def === 'followUp' ? 'steer' : 'followUp';
  return def;
}

function paintComposer(): void {
  const running = vm.isStreaming;
  stopBtn.hidden = !running;
  const g = settings.enterAction;
  sendBtn.textContent = running ? LABEL[g] : 'Send';
  sendBtn.title = running
    ? `${LABEL[g]}: ${g === 'steer' ? 'delivered at the next turn boundary' : g === 'followUp' ? 'delivered when the run ends' : 'stop the run and send now'}`
    : 'Send (Enter)';
  const alt = g === 'followUp' ? 'steer' : 'follow-up';
  hint.textContent = vm.questions.length > 0
    ? 'pi is asking a question: Enter answers it with this text'
    : running
    ? `Enter ${LABEL[g].toLowerCase()} · Alt+Enter ${alt} · Ctrl+Enter interrupt · Shift+Enter new line`
    : vm.compacting
      ? 'Compacting…'
      : 'Enter send · Shift+Enter new line · @ file · / commands';
  composer.dataset.running = String(running);
}

const SLASH: Record<string, string> = {
  '/new': 'start a new session',
  '/sessions': 'browse and resume sessions',
  '/compact': 'summarise older messages to free context',
  '/fork': 'branch a new session at your last message',
  '/model': 'switch the model of this session: /model <id>',
  '/thinking': 'thinking level: /thinking off|minimal|low|medium|high|xhigh',
  '/stop': 'stop the run (the queue is kept)',
  '/help': 'list these commands',
};

/** Slash commands; true when the text was one (and was handled). */
function slash(text: string): boolean {
  const m = /^(\/[a-z]+)(?:\s+(.*))?$/s.exec(text);
  if (!m || !(m[1] in SLASH)) return false;
  const arg = (m[2] ?? '').trim();
  switch (m[1]) {
    case '/new':
      post({ type: 'newSession' });
      break;
    case '/sessions':
      post({ type: 'listSessions' });
      break;
    case '/compact':
      post({ type: 'compact' });
      break;
    case '/fork': {
      const last = [...vm.items].reverse().find((i) => i.kind === 'user' && i.entryId);
      if (last && last.kind === 'user' && last.entryId) post({ type: 'fork', entryId: last.entryId });
      else toast('warning', 'Nothing to fork from yet.');
      break;
    }
    case '/model':
      if (arg) post({ type: 'setModel', model: arg });
      else toast('info', `Model: ${vm.model?.name ?? vm.model?.id ?? 'unknown'}`);
      break;
    case '/thinking':
      if (['off', 'minimal', 'low', 'medium', 'high', 'xhigh'].includes(arg)) post({ type: 'setThinking', level: arg });
      else toast('warning', SLASH['/thinking']);
      break;
    case '/stop':
      post({ type: 'stop' });
      break;
    case '/help':
      toast('info', Object.entries(SLASH).map(([k, v]) => `${k} — ${v}`).join('\n'));
      break;
  }
  return true;
}

function send(gesture: Gesture): void {
  const text = input.value.trim();
  if (!text && images.length === 0) return;
  if (images.length === 0 && slash(text)) {
    input.value = '';
    saveDraft();
    hideCompletion();
    return;
  }
  const msg: Record<string, unknown> = { type: 'send', text };
  if (vm.isStreaming) msg.deliverAs = gesture;
  if (images.length > 0) msg.images = images.map((i) => ({ data: i.data, mimeType: i.mimeType }));
  post(msg);
  input.value = '';
  images = [];
  paintImages();
  saveDraft();
  hideCompletion();
}

// Pasted images travel with the next message (pi/prompt `images`).
let images: { data: string; mimeType: string; name: string }[] = [];
const MAX_IMAGE = 5_000_000;
input.addEventListener('paste', (e) => {
  const files = Array.from(e.clipboardData?.items ?? [])
    .filter((i) => i.kind === 'file' && /^image\/(png|jpeg|gif|webp)$/.test(i.type))
    .map((i) => i.getAsFile())
    .filter((f): f is File => !!f);
  if (files.length === 0) return;
  e.preventDefault();
  for (const f of files) {
    if (f.size > MAX_IMAGE) {
      toast('warning', `${f.name || 'image'} is over 5 MB; not attached.`);
      continue;
    }
    const reader = new FileReader();
    reader.onload = () => {
      const url = typeof reader.result === 'string' ? reader.result : '';
      const data = url.slice(url.indexOf(',') + 1);
      images.push({ data, mimeType: f.type, name: f.name || `image ${images.length + 1}` });
      paintImages();
    };
    reader.readAsDataURL(f);
  }
});

function paintImages(): void {
  clear(imagesEl);
  imagesEl.hidden = images.length === 0;
  images.forEach((img, i) => {
    imagesEl.append(
      h(
        'span.chip',
        { 'data-testid': 'image-chip' },
        img.name,
        h('button.icon', {
          title: 'Remove',
          text: '×',
          onclick: () => {
            images.splice(i, 1);
            paintImages();
          },
        }),
      ),
    );
  });
}

sendBtn.addEventListener('click', () => send(gestureFor(null)));
stopBtn.addEventListener('click', () => post({ type: 'stop' }));

let completionItems: string[] = [];
let completionIndex = 0;
let completionReq = 0;
let completionStart = -1;

input.addEventListener('keydown', (e) => {
  if (!completion.hidden) {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      completionIndex = (completionIndex + (e.key === 'ArrowDown' ? 1 : -1) + completionItems.length) % completionItems.length;
      paintCompletion();
      return;
    }
    if ((e.key === 'Enter' || e.key === 'Tab') && completionItems.length > 0) {
      e.preventDefault();
      pickCompletion(completionItems[completionIndex]);
      return;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      hideCompletion();
      return;
    }
  }
  if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
    e.preventDefault();
    send(vm.isStreaming ? gestureFor(e) : 'steer');
  }
});

input.addEventListener('input', () => {
  saveDraft();
  const sm = /^\/[a-z]*$/.exec(input.value);
  if (sm) {
    completionStart = 0;
    completionReq += 1;
    showCompletion(completionReq, Object.keys(SLASH).filter((k) => k.startsWith(sm[0])), true);
    return;
  }
  const q = mentionQueryAt(input.value, input.selectionStart ?? input.value.length);
  if (!q) {
    hideCompletion();
    return;
  }
  completionStart = q.start;
  completionReq += 1;
  post({ type: 'completeFiles', query: q.query, requestId: completionReq });
});

let completionSlash = false;
function showCompletion(requestId: number, files: string[], isSlash = false): void {
  if (requestId !== completionReq) return;
  completionSlash = isSlash;
  completionItems = files;
  completionIndex = 0;
  completion.hidden = files.length === 0;
  paintCompletion();
}

function paintCompletion(): void {
  clear(completion);
  completionItems.forEach((f, i) => {
    completion.append(
      h('div.completion-item', {
        role: 'option',
        'aria-selected': String(i === completionIndex),
        text: completionSlash ? `${f} — ${SLASH[f]}` : f,
        onmousedown: (ev: Event) => {
          ev.preventDefault();
          pickCompletion(f);
        },
      }),
    );
  });
}

function pickCompletion(file: string): void {
  const cursor = input.selectionStart ?? input.value.length;
  const before = input.value.slice(0, completionStart);
  const after = input.value.slice(cursor);
  const ins = completionSlash ? `${file} ` : `@${file} `;
  input.value = before + ins + after;
  const pos = before.length + ins.length;
  input.setSelectionRange(pos, pos);
  hideCompletion();
  saveDraft();
}

function hideCompletion(): void {
  completion.hidden = true;
  completionItems = [];
}

function insertAtCursor(text: string): void {
  const start = input.selectionStart ?? input.value.length;
  const end = input.selectionEnd ?? start;
  const pre = input.value.slice(0, start);
  const sep = pre && !/\s$/.test(pre) ? ' ' : '';
  input.value = pre + sep + text + input.value.slice(end);
  const pos = pre.length + sep.length + text.length;
  input.setSelectionRange(pos, pos);
  saveDraft();
}

function saveDraft(): void {
  vscode.setState({ draft: input.value, planCollapsed } satisfies Persisted);
}

post({ type: 'ready' });
paint();
