// The pure reducer: (view model, action) → (new view model, effects). No vscode, no DOM, no
// I/O: the extension host runs it to answer `state()` and to decide effects (e.g. a seq gap →
// `pi/replay`); the webview runs the same code on the same actions to render. Deterministic:
// ids come from a counter inside the model, never from clocks or randomness.

import { summariseTool, toolDiff, toolOutputText, clipOutput, toolTitle } from './tools';
import type {
  AssistantBlock,
  AssistantItem,
  Checkpoint,
  Features,
  Item,
  McpServerRow,
  NoticeItem,
  PermissionItem,
  QuestionItem,
  TodoEntry,
  Queue,
  ReviewFile,
  ServerInfo,
  ToolItem,
  Usage,
  UserItem,
  ViewModel,
  WireEvent,
} from './types';

export interface WireNotification {
  sessionId: string;
  seq: number;
  event: WireEvent;
}

/** Everything that changes the view model. */
export type Action =
  | { type: 'server'; server: ServerInfo }
  | { type: 'features'; features: Partial<Features> }
  | { type: 'event'; note: WireNotification }
  | { type: 'replay'; sessionId: string; events: WireNotification[]; complete: boolean }
  | { type: 'beginSession'; sessionId: string }
  | {
      type: 'loadSession';
      sessionId: string;
      messages: unknown[];
      entryIds?: (string | null)[];
      /** A run is going: the messages are those before it, and its events after this seq
       * (`pi/replay`, then live) rebuild it — earlier ones are dropped as already shown. */
      afterSeq?: number;
    }
  | { type: 'state'; state: Record<string, unknown> }
  | { type: 'queue'; queue: Queue }
  | { type: 'localQueue'; text: string; deliverAs: 'steer' | 'followUp' }
  | { type: 'review'; files: ReviewFile[] }
  | { type: 'checkpoints'; checkpoints: Checkpoint[] }
  | { type: 'entryIds'; users: { entryId: string; text: string }[] }
  | { type: 'permissionAsk'; requestKey: string; params: Record<string, unknown> }
  | { type: 'permissionDone'; requestKey: string; answer?: string; withdrawn?: boolean }
  | { type: 'questionAsk'; requestKey: string; params: Record<string, unknown> }
  | { type: 'questionDone'; requestKey: string; answer?: string; status: 'answered' | 'dismissed' | 'withdrawn' }
  | { type: 'notice'; level: NoticeItem['level']; topic: string; text: string; restoreId?: string }
  | { type: 'disconnected'; reason: string };

/** What the host must do after a reduction (the webview ignores effects). */
export type Effect =
  | { type: 'replay'; sessionId: string; afterSeq: number }
  | { type: 'reload'; sessionId: string }
  | { type: 'refresh'; sessionId: string };

export interface Result {
  vm: ViewModel;
  effects: Effect[];
}

const ZERO_USAGE: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };

export function initialState(): ViewModel {
  return {
    server: { status: 'starting' },
    features: {
      queue: false,
      interrupt: false,
      review: false,
      checkpoints: false,
      models: false,
      permissions: false,
    },
    sessionId: null,
    lastSeq: null,
    replayAfter: null,
    isStreaming: false,
    turn: 0,
    items: [],
    queue: { steering: [], followUp: [] },
    permissions: [],
    questions: [],
    mode: 'act',
    todo: [],
    planReady: false,
    review: [],
    checkpoints: [],
    usage: { ...ZERO_USAGE },
    contextTokens: null,
    contextWindow: null,
    model: null,
    thinkingLevel: null,
    mcp: [],
    compacting: false,
    held: [],
    nextId: 1,
    rev: 0,
  };
}

/** A mutable draft of one reduction: copies the items array lazily, stamps changed items. */
class Draft {
  vm: ViewModel;
  effects: Effect[] = [];
  private itemsCopied = false;
  private index: Map<string, number> | null = null;

  constructor(prev: ViewModel) {
    this.vm = { ...prev, rev: prev.rev + 1 };
  }

  get rev(): number {
    return this.vm.rev;
  }

  newId(prefix: string): string {
    const id = `${prefix}${this.vm.nextId}`;
    this.vm.nextId += 1;
    return id;
  }

  private items(): Item[] {
    if (!this.itemsCopied) {
      this.vm.items = this.vm.items.slice();
      this.itemsCopied = true;
    }
    return this.vm.items;
  }

  push(item: Item): void {
    item.rev = this.rev;
    this.items().push(item);
    this.index?.set(item.id, this.vm.items.length - 1);
  }

  find(id: string): number {
    if (!this.index) {
      // Most lookups hit the newest items: search backwards before building an index.
      const items = this.vm.items;
      for (let i = items.length - 1, n = 0; i >= 0 && n < 64; i--, n++) {
        if (items[i].id === id) return i;
      }
      this.index = new Map(items.map((it, i) => [it.id, i]));
    }
    return this.index.get(id) ?? -1;
  }

  get<T extends Item>(id: string): T | undefined {
    const i = this.find(id);
    return i < 0 ? undefined : (this.vm.items[i] as T);
  }

  /** Replace item `id` by `fn(copy)`. */
  update<T extends Item>(id: string, fn: (it: T) => void): T | undefined {
    const i = this.find(id);
    if (i < 0) return undefined;
    const copy = { ...(this.vm.items[i] as T) };
    fn(copy);
    copy.rev = this.rev;
    this.items()[i] = copy;
    return copy;
  }

  lastStreamingAssistant(): AssistantItem | undefined {
    const items = this.vm.items;
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i];
      if (it.kind === 'assistant') return it.streaming ? it : undefined;
      if (it.kind === 'user') return undefined;
    }
    return undefined;
  }

  result(): Result {
    return { vm: this.vm, effects: this.effects };
  }
}

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
    case 'permissionDone': {
      const id = `p:${action.requestKey}`;
      d.update<PermissionItem>(id, (p) => {
        p.status = action.withdrawn ? 'withdrawn' : 'answered';
        if (action.answer !== undefined) p.answer = action.answer;
      });
      d.vm.permissions = d.vm.permissions.filter((p) => p.requestKey !== action.requestKey);
      break;
    }
    case 'questionAsk':
      askQuestion(d, action.requestKey, action.params);
      break;
    case 'questionDone': {
      d.update<QuestionItem>(`q:${action.requestKey}`, (q) => {
        q.status = action.status;
        if (action.answer !== undefined) q.answer = action.answer;
      });
      d.vm.questions = d.vm.questions.filter((q) => q.requestKey !== action.requestKey);
      break;
    }
    case 'notice':
      d.push({
        kind: 'notice',
        id: d.newId('n'),
        level: action.level,
        topic: action.topic,
        text: action.text,
        restoreId: action.restoreId,
        rev: 0,
      });
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

// ---------------------------------------------------------------------------------------
// pi/event ordering: duplicates dropped, gaps held until pi/replay fills them.

function acceptEvent(d: Draft, note: WireNotification): void {
  const vm = d.vm;
  if (vm.sessionId === null) vm.sessionId = note.sessionId;
  if (note.sessionId !== vm.sessionId) return; // another session: shown when resumed
  const seq = note.seq;
  if (vm.lastSeq !== null) {
    if (seq <= vm.lastSeq) return; // replayed or duplicated
    if (seq > vm.lastSeq + 1) {
      if (!vm.held.some((h) => h.seq === seq)) {
        vm.held = [...vm.held, { seq, event: note.event }].sort((a, b) => a.seq - b.seq);
      }
      if (vm.replayAfter === null) {
        vm.replayAfter = vm.lastSeq;
        d.effects.push({ type: 'replay', sessionId: note.sessionId, afterSeq: vm.lastSeq });
      }
      return;
    }
  }
  applyEvent(d, note.event);
  vm.lastSeq = seq;
  drainHeld(d);
}

function drainHeld(d: Draft): void {
  const vm = d.vm;
  while (vm.held.length > 0 && vm.lastSeq !== null && vm.held[0].seq <= vm.lastSeq + 1) {
    const [first, ...rest] = vm.held;
    vm.held = rest;
    if (first.seq === vm.lastSeq + 1) {
      applyEvent(d, first.event);
      vm.lastSeq = first.seq;
    }
  }
  if (vm.held.length === 0) vm.replayAfter = null;
}

function applyReplay(
  d: Draft,
  a: { sessionId: string; events: WireNotification[]; complete: boolean },
): void {
  const vm = d.vm;
  if (a.sessionId !== vm.sessionId) return;
  const events = a.events.slice().sort((x, y) => x.seq - y.seq);
  for (const note of events) {
    if (vm.lastSeq !== null && note.seq <= vm.lastSeq) continue;
    if (vm.lastSeq !== null && note.seq > vm.lastSeq + 1) break; // still a hole
    applyEvent(d, note.event);
    vm.lastSeq = note.seq;
  }
  drainHeld(d);
  vm.replayAfter = null;
  if (!a.complete || vm.held.length > 0) {
    // The server's buffer no longer holds what we missed: reload the transcript.
    vm.held = [];
    d.effects.push({ type: 'reload', sessionId: a.sessionId });
  }
}

// ---------------------------------------------------------------------------------------
// Events

function applyEvent(d: Draft, ev: WireEvent): void {
  const vm = d.vm;
  switch (ev.type) {
    case 'agent_start':
      vm.isStreaming = true;
      vm.turn = 0;
      vm.planReady = false;
      break;
    case 'turn_start':
      vm.turn += 1;
      break;
    case 'message_start':
      messageStart(d, ev);
      break;
    case 'message_update':
      messageUpdate(d, ev);
      break;
    case 'message_end':
      messageEnd(d, ev);
      break;
    case 'tool_execution_start': {
      const t = ensureTool(d, str(ev.toolCallId), str(ev.toolName), obj(ev.args));
      d.update<ToolItem>(t.id, (x) => {
        x.status = 'running';
        if (ev.args && typeof ev.args === 'object') {
          x.args = obj(ev.args);
          x.title = toolTitle(x.toolName, x.args);
        }
      });
      break;
    }
    case 'tool_execution_update': {
      const t = ensureTool(d, str(ev.toolCallId), str(ev.toolName), {});
      const text = toolOutputText(ev.partialResult);
      d.update<ToolItem>(t.id, (x) => {
        x.status = 'running';
        Object.assign(x, clipOutput(text));
      });
      break;
    }
    case 'tool_execution_end': {
      const t = ensureTool(d, str(ev.toolCallId), str(ev.toolName), {});
      const isError = ev.isError === true;
      const text = toolOutputText(ev.result);
      d.update<ToolItem>(t.id, (x) => {
        x.status = isError ? 'error' : 'done';
        Object.assign(x, clipOutput(text));
        x.summary = summariseTool(x.toolName, x.args, text, isError);
        if (!isError) x.diff = toolDiff(x.toolName, x.args, ev.result);
      });
      break;
    }
    case 'turn_end':
      break;
    case 'agent_end':
      endRunLocally(d, null);
      if (vm.sessionId) d.effects.push({ type: 'refresh', sessionId: vm.sessionId });
      break;
    case 'compaction_start':
      vm.compacting = true;
      d.push(notice(d, 'info', 'compaction', `Compacting the conversation (${str(ev.reason) || 'manual'})…`));
      break;
    case 'compaction_end': {
      vm.compacting = false;
      const before = num(ev.tokensBefore);
      const after = num(ev.tokensAfter);
      let text: string;
      let level: NoticeItem['level'] = 'info';
      if (typeof ev.errorMessage === 'string' && ev.errorMessage) {
        text = `Compaction failed: ${ev.errorMessage}`;
        level = 'warning';
      } else if (ev.aborted === true) {
        text = 'Compaction aborted.';
        level = 'warning';
      } else if (before !== null && after !== null) {
        text = `Compacted the conversation: ${fmtTokens(before)} → ${fmtTokens(after)} tokens.`;
        vm.contextTokens = after;
      } else {
        text = 'Compacted the conversation.';
      }
      d.push(notice(d, level, 'compaction', text));
      break;
    }
    case 'retry': {
      const delay = num(ev.delayMs) ?? 0;
      d.push(
        notice(
          d,
          'warning',
          'retry',
          `${str(ev.errorMessage) || 'Provider error'} — retrying (attempt ${num(ev.attempt) ?? '?'}) in ${(delay / 1000).toFixed(1)} s`,
        ),
      );
      break;
    }
    case 'session_save':
      d.push(
        ev.ok === false
          ? notice(d, 'error', 'save', `pi cannot save this session: ${str(ev.errorMessage) || 'unknown error'}. What happens now may be lost after a restart.`)
          : notice(d, 'info', 'save', 'Saving the session works again.'),
      );
      break;
    case 'todo_update':
      vm.todo = normTodo(Array.isArray(ev.items) ? ev.items : []);
      break;
    case 'mode_update':
      if (ev.mode === 'plan' || ev.mode === 'act') setMode(vm, ev.mode);
      break;
    case 'queue_update':
      vm.queue = normQueue(ev as unknown as Queue);
      vm.features = vm.features.queue ? vm.features : { ...vm.features, queue: true };
      break;
    case 'review_update':
      vm.review = Array.isArray(ev.files) ? (ev.files as ReviewFile[]).filter((f) => f.hunks?.length) : [];
      vm.features = vm.features.review ? vm.features : { ...vm.features, review: true };
      break;
    default:
      break; // unknown events are ignored (newer server)
  }
}

function messageStart(d: Draft, ev: WireEvent): void {
  const m = obj(ev.message);
  const role = m.role;
  if (role === 'user') {
    const glued = gluedNote(d, m.content);
    if (glued) d.push(glued);
    const text = userText(m.content);
    const deliveredAs = ev.deliveredAs === 'steer' || ev.deliveredAs === 'followUp' ? ev.deliveredAs : undefined;
    const queuedId = typeof ev.queuedId === 'string' ? ev.queuedId : undefined;
    const item: UserItem = {
      kind: 'user',
      id: d.newId('u'),
      text,
      images: countImages(m.content),
      turn: d.vm.turn,
      rev: 0,
    };
    if (deliveredAs) item.deliveredAs = deliveredAs;
    if (queuedId) item.queuedId = queuedId;
    // An optimistic local queue entry (server without queue_update) is now delivered.
    const q = d.vm.queue;
    const local = (e: { id: string; text: string }) => e.id.startsWith('local:') && e.text === text;
    const inSteer = q.steering.findIndex(local);
    const inFollow = q.followUp.findIndex(local);
    if (inSteer >= 0 || inFollow >= 0) {
      if (!item.deliveredAs && d.vm.turn > 1) item.deliveredAs = inSteer >= 0 ? 'steer' : 'followUp';
      d.vm.queue = {
        steering: inSteer >= 0 ? q.steering.filter((_, i) => i !== inSteer) : q.steering,
        followUp: inSteer < 0 && inFollow >= 0 ? q.followUp.filter((_, i) => i !== inFollow) : q.followUp,
      };
    }
    d.push(item);
  } else if (role === 'assistant') {
    d.push({
      kind: 'assistant',
      id: d.newId('a'),
      blocks: contentBlocks(m.content),
      streaming: true,
      model: typeof m.model === 'string' ? m.model : undefined,
      turn: d.vm.turn,
      rev: 0,
    });
  } else if (role === 'compactionSummary' || role === 'branchSummary') {
    d.push(notice(d, 'info', 'compaction', role === 'compactionSummary' ? 'Earlier conversation summarised.' : 'Branch summary.'));
  } else if (role === 'custom') {
    const t = told(d, m);
    if (t) d.push(t);
  }
}

function messageUpdate(d: Draft, ev: WireEvent): void {
  const a = d.lastStreamingAssistant();
  if (!a) return;
  const u = obj(ev.assistantMessageEvent);
  const ci = num(u.contentIndex) ?? 0;
  const delta = typeof u.delta === 'string' ? u.delta : '';
  let toolCall: Record<string, unknown> | null = null;
  d.update<AssistantItem>(a.id, (x) => {
    const blocks = x.blocks.slice();
    const at = blocks[ci];
    switch (u.type) {
      case 'text_start':
        blocks[ci] = { type: 'text', text: '' };
        break;
      case 'text_delta':
        blocks[ci] = { type: 'text', text: (at && at.type === 'text' ? at.text : '') + delta };
        break;
      case 'thinking_start':
        blocks[ci] = { type: 'thinking', text: '' };
        break;
      case 'thinking_delta':
        blocks[ci] = { type: 'thinking', text: (at && at.type === 'thinking' ? at.text : '') + delta };
        break;
      case 'toolcall_start':
        blocks[ci] = { type: 'toolCall', toolCallId: '', name: '' };
        break;
      case 'toolcall_end': {
        const tc = obj(u.toolCall);
        toolCall = tc;
        blocks[ci] = { type: 'toolCall', toolCallId: str(tc.id), name: str(tc.name) };
        break;
      }
      default:
        break;
    }
    for (let i = 0; i < blocks.length; i++) if (!blocks[i]) blocks[i] = { type: 'text', text: '' };
    x.blocks = blocks;
  });
  if (toolCall) {
    const tc = toolCall as Record<string, unknown>;
    if (str(tc.id)) ensureTool(d, str(tc.id), str(tc.name), obj(tc.arguments));
  }
}

function messageEnd(d: Draft, ev: WireEvent): void {
  const m = obj(ev.message);
  if (m.role !== 'assistant') return;
  let a = d.lastStreamingAssistant();
  if (!a) {
    // message_end without its start (joined mid-stream): show it whole.
    messageStart(d, { type: 'message_start', message: m });
    a = d.lastStreamingAssistant();
    if (!a) return;
  }
  const blocks = contentBlocks(m.content);
  const streamed = Array.isArray(m.content) ? m.content.map((c) => obj(c).streamed === true) : [];
  const usage = normUsage(m.usage);
  d.update<AssistantItem>(a.id, (x) => {
    // compactEvents: a `streamed` block's text came with the deltas; keep what we built.
    const final = blocks.map((b, i) => (streamed[i] && x.blocks[i] ? x.blocks[i] : b));
    if (final.length > 0 || x.blocks.length === 0) x.blocks = final;
    x.streaming = false;
    if (typeof m.stopReason === 'string') x.stopReason = m.stopReason;
    if (typeof m.errorMessage === 'string') x.errorMessage = m.errorMessage;
    if (usage) x.usage = usage;
    if (typeof m.model === 'string') x.model = m.model;
  });
  if (usage) {
    d.vm.usage = addUsage(d.vm.usage, usage);
    // The context meter until pi/state reports its own estimate: what this call used.
    const used = usage.input + usage.cacheRead + usage.cacheWrite + usage.output;
    if (used > 0) d.vm.contextTokens = used;
  }
  for (const b of blocks) {
    if (b.type === 'toolCall' && b.toolCallId) {
      const call = (Array.isArray(m.content) ? (m.content as unknown[]) : []).find(
        (c) => obj(c).type === 'toolCall' && obj(c).id === b.toolCallId,
      );
      ensureTool(d, b.toolCallId, b.name, obj(obj(call).arguments));
    }
  }
}

function ensureTool(d: Draft, toolCallId: string, toolName: string, args: Record<string, unknown>): ToolItem {
  const id = `t:${toolCallId}`;
  const existing = d.get<ToolItem>(id);
  if (existing) {
    if (Object.keys(existing.args).length === 0 && Object.keys(args).length > 0) {
      return d.update<ToolItem>(id, (x) => {
        x.args = args;
        x.title = toolTitle(x.toolName || toolName, args);
      }) as ToolItem;
    }
    return existing;
  }
  const item: ToolItem = {
    kind: 'tool',
    id,
    toolCallId,
    toolName,
    args,
    title: toolTitle(toolName, args),
    status: 'pending',
    summary: '',
    output: '',
    outputLines: 0,
    outputCut: 0,
    turn: d.vm.turn,
    rev: 0,
  };
  d.push(item);
  return item;
}

/** The run is over (agent_end, or the server went away): nothing stays "running". */
function endRunLocally(d: Draft, reason: string | null): void {
  const vm = d.vm;
  vm.isStreaming = false;
  vm.compacting = false;
  const items = vm.items;
  for (let i = Math.max(0, items.length - 400); i < items.length; i++) {
    const it = items[i];
    if (it.kind === 'assistant' && it.streaming) {
      d.update<AssistantItem>(it.id, (x) => {
        x.streaming = false;
        if (reason && !x.stopReason) {
          x.stopReason = 'error';
          x.errorMessage = reason;
        }
      });
    } else if (it.kind === 'tool' && (it.status === 'running' || it.status === 'pending')) {
      d.update<ToolItem>(it.id, (x) => {
        x.status = 'error';
        x.summary = reason ?? 'not run';
      });
    } else if (it.kind === 'permission' && it.status === 'pending' && reason) {
      d.update<PermissionItem>(it.id, (x) => {
        x.status = 'withdrawn';
      });
    }
  }
  for (const q of vm.questions) {
    d.update<QuestionItem>(q.id, (x) => {
      x.status = 'withdrawn';
    });
  }
  vm.questions = [];
  if (vm.mode === 'plan' && !reason) vm.planReady = true;
  if (reason) {
    vm.permissions = [];
    d.push(notice(d, 'warning', 'reconnect', reason));
  }
}

// ---------------------------------------------------------------------------------------
// Whole transcripts, state, checkpoints, permissions

function loadSession(d: Draft, sessionId: string, messages: unknown[], entryIds: (string | null)[]): void {
  const keepFeatures = d.vm.features;
  const keepServer = d.vm.server;
  const same = d.vm.sessionId === sessionId;
  const fresh = initialState();
  d.vm = {
    ...fresh,
    // The same session reloaded: what its events already said about the queue, review and
    // pending questions stays (the transcript is what gets replaced).
    ...(same
      ? {
          queue: d.vm.queue,
          review: d.vm.review,
          permissions: d.vm.permissions,
          questions: d.vm.questions,
          mode: d.vm.mode,
          todo: d.vm.todo,
          planReady: d.vm.planReady,
        }
      : {}),
    server: keepServer,
    features: keepFeatures,
    sessionId,
    nextId: d.vm.nextId,
    rev: d.vm.rev,
    model: d.vm.model,
    thinkingLevel: d.vm.thinkingLevel,
    contextWindow: d.vm.contextWindow,
  };
  const items: Item[] = [];
  const tools = new Map<string, number>();
  let usage = { ...ZERO_USAGE };
  messages.forEach((raw, i) => {
    const m = obj(raw);
    const entryId = entryIds[i] ?? undefined;
    if (m.role === 'user') {
      const glued = gluedNote(d, m.content);
      if (glued) items.push({ ...glued, rev: d.rev });
      const u: UserItem = {
        kind: 'user',
        id: d.newId('u'),
        text: userText(m.content),
        images: countImages(m.content),
        turn: 0,
        rev: d.rev,
      };
      if (entryId) u.entryId = entryId;
      items.push(u);
    } else if (m.role === 'assistant') {
      const mu = normUsage(m.usage);
      if (mu) {
        usage = addUsage(usage, mu);
        const used = mu.input + mu.cacheRead + mu.cacheWrite + mu.output;
        if (used > 0) d.vm.contextTokens = used;
      }
      const a: AssistantItem = {
        kind: 'assistant',
        id: d.newId('a'),
        blocks: contentBlocks(m.content),
        streaming: false,
        stopReason: typeof m.stopReason === 'string' ? m.stopReason : undefined,
        errorMessage: typeof m.errorMessage === 'string' ? m.errorMessage : undefined,
        usage: mu ?? undefined,
        model: typeof m.model === 'string' ? m.model : undefined,
        turn: 0,
        rev: d.rev,
      };
      items.push(a);
      for (const c of Array.isArray(m.content) ? m.content : []) {
        const b = obj(c);
        if (b.type !== 'toolCall') continue;
        const args = obj(b.arguments);
        const t: ToolItem = {
          kind: 'tool',
          id: `t:${str(b.id)}`,
          toolCallId: str(b.id),
          toolName: str(b.name),
          args,
          title: toolTitle(str(b.name), args),
          status: 'pending',
          summary: '',
          output: '',
          outputLines: 0,
          outputCut: 0,
          turn: 0,
          rev: d.rev,
        };
        tools.set(t.toolCallId, items.length);
        items.push(t);
      }
    } else if (m.role === 'toolResult') {
      const at = tools.get(str(m.toolCallId));
      if (at === undefined) return;
      const t = items[at] as ToolItem;
      const text = toolOutputText(m);
      const isError = m.isError === true;
      items[at] = {
        ...t,
        ...clipOutput(text),
        status: isError ? 'error' : 'done',
        summary: summariseTool(t.toolName, t.args, text, isError),
        diff: isError ? undefined : toolDiff(t.toolName, t.args, m),
      };
    } else if (m.role === 'custom') {
      const t = told(d, m);
      if (t) items.push({ ...t, rev: d.rev });
    } else if (m.role === 'compactionSummary' || m.role === 'branchSummary') {
      items.push({
        kind: 'notice',
        id: d.newId('n'),
        level: 'info',
        topic: 'compaction',
        text: m.role === 'compactionSummary' ? 'Earlier conversation summarised.' : 'Branch summary.',
        rev: d.rev,
      });
    }
  });
  // Questions still waiting for an answer stay answerable after the reload.
  for (const p of d.vm.permissions) items.push({ ...p, rev: d.rev });
  for (const q of d.vm.questions) items.push({ ...q, rev: d.rev });
  d.vm.items = items;
  d.vm.usage = usage;
}

function applyState(d: Draft, s: Record<string, unknown>): void {
  const vm = d.vm;
  if (typeof s.sessionId === 'string' && vm.sessionId !== null && s.sessionId !== vm.sessionId) return;
  if (typeof s.isStreaming === 'boolean' && !s.isStreaming && vm.isStreaming) {
    // The server says the run is over although we saw no agent_end: trust it.
    endRunLocally(d, null);
  } else if (typeof s.isStreaming === 'boolean') {
    vm.isStreaming = s.isStreaming;
  }
  const model = s.model;
  if (model && typeof model === 'object') {
    const m = model as Record<string, unknown>;
    vm.model = {
      provider: typeof m.provider === 'string' ? m.provider : undefined,
      id: str(m.id),
      name: typeof m.name === 'string' ? m.name : undefined,
      contextWindow: num(m.contextWindow) ?? undefined,
    };
    if (num(m.contextWindow) !== null) vm.contextWindow = num(m.contextWindow);
  } else if (typeof model === 'string') {
    vm.model = { id: model };
  }
  const usage = normUsage(s.usage);
  if (usage) vm.usage = usage;
  if (num(s.contextTokens) !== null) vm.contextTokens = num(s.contextTokens);
  if (num(s.contextWindow) !== null) vm.contextWindow = num(s.contextWindow);
  if (typeof s.thinkingLevel === 'string') vm.thinkingLevel = s.thinkingLevel;
  if (s.mode === 'plan' || s.mode === 'act') setMode(vm, s.mode);
  if (Array.isArray(s.todo)) vm.todo = normTodo(s.todo);
  if (Array.isArray(s.mcp)) vm.mcp = normMcp(s.mcp);
}

function setMode(vm: ViewModel, mode: 'plan' | 'act'): void {
  if (mode !== 'plan') vm.planReady = false;
  vm.mode = mode;
}

function normTodo(items: unknown[]): TodoEntry[] {
  return items.map((raw) => {
    const o = obj(raw);
    const status = o.status === 'completed' || o.status === 'in_progress' ? o.status : 'pending';
    return { id: str(o.id), content: str(o.content), status };
  });
}

function askQuestion(d: Draft, requestKey: string, p: Record<string, unknown>): void {
  const options = Array.isArray(p.options)
    ? (p.options as unknown[]).map((o) => {
        const r = obj(o);
        const opt: { label: string; description?: string } = { label: str(r.label) };
        if (typeof r.description === 'string' && r.description) opt.description = r.description;
        return opt;
      })
    : [];
  const item: QuestionItem = {
    kind: 'question',
    id: `q:${requestKey}`,
    requestKey,
    toolCallId: str(p.toolCallId),
    question: str(p.question),
    options,
    allowFreeText: p.allowFreeText === true,
    multiSelect: p.multiSelect === true,
    status: 'pending',
    rev: 0,
  };
  d.push(item);
  d.vm.questions = [...d.vm.questions, d.get<QuestionItem>(item.id) as QuestionItem];
}

function normMcp(list: unknown[]): McpServerRow[] {
  const rows: McpServerRow[] = [];
  for (const raw of list) {
    if (!raw || typeof raw !== 'object') continue;
    const r = raw as Record<string, unknown>;
    if (typeof r.name !== 'string') continue;
    rows.push({
      name: r.name,
      source: str(r.source),
      transport: str(r.transport),
      target: str(r.target),
      state: str(r.state),
      message: typeof r.message === 'string' ? r.message : undefined,
      toolCount: num(r.toolCount) ?? 0,
    });
  }
  return rows;
}

/** Give user items without an entry id the next matching one, in order (one per user message). */
function assignEntryIds(d: Draft, checkpoints: { entryId: string; text: string }[]): void {
  const users = d.vm.items.filter((it): it is UserItem => it.kind === 'user');
  const byId = new Set(users.map((u) => u.entryId).filter(Boolean));
  const free = checkpoints.filter((c) => !byId.has(c.entryId));
  let ci = 0;
  for (const u of users) {
    if (u.entryId) continue;
    // The checkpoint may hold the typed text only, the message the attachments too.
    const same = (c: string) => {
      const a = c.trim();
      const b = u.text.trim();
      return a === b || (a.length > 0 && b.startsWith(a)) || (b.length > 0 && a.startsWith(b));
    };
    while (ci < free.length && !same(free[ci].text)) ci++;
    if (ci >= free.length) break;
    const entryId = free[ci].entryId;
    d.update<UserItem>(u.id, (x) => {
      x.entryId = entryId;
    });
    ci++;
  }
}

function askPermission(d: Draft, requestKey: string, p: Record<string, unknown>): void {
  const options = Array.isArray(p.options)
    ? (p.options as unknown[]).map((o) => {
        const r = obj(o);
        return { id: str(r.id), label: str(r.label) || str(r.id), kind: str(r.kind) };
      })
    : [];
  const item: PermissionItem = {
    kind: 'permission',
    id: `p:${requestKey}`,
    requestKey,
    toolCallId: str(p.toolCallId),
    tool: str(p.tool),
    title: str(p.title) || `Allow ${str(p.tool)}?`,
    detail: str(p.detail),
    options,
    status: 'pending',
    rev: 0,
  };
  d.push(item);
  d.vm.permissions = [...d.vm.permissions, d.get<PermissionItem>(item.id) as PermissionItem];
}

// ---------------------------------------------------------------------------------------
// Helpers

function notice(d: Draft, level: NoticeItem['level'], topic: string, text: string): NoticeItem {
  return { kind: 'notice', id: d.newId('n'), level, topic, text, rev: 0 };
}

/**
 * A `custom` message (docs/protocol.md §9.1: the review note) is what pi told the model, not the
 * user's words: a muted one-line marker, its full text behind it. Hidden ones (`display: false`)
 * are not shown.
 */
function told(d: Draft, m: Record<string, unknown>): NoticeItem | null {
  if (m.display === false) return null;
  const full = typeof m.content === 'string' ? m.content
    : Array.isArray(m.content) ? m.content.map((c) => str(obj(c).text)).join('') : '';
  const summary = str(obj(m.details).summary);
  const line = summary || full.split('\n')[0] || str(m.customType);
  return { ...notice(d, 'info', 'told', `pi was told: ${line}`), detail: full };
}

function normQueue(q: unknown): Queue {
  const o = obj(q);
  const list = (x: unknown) =>
    Array.isArray(x) ? x.map((e) => ({ id: str(obj(e).id), text: str(obj(e).text) })) : [];
  return { steering: list(o.steering), followUp: list(o.followUp) };
}

function contentBlocks(content: unknown): AssistantBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map((c): AssistantBlock => {
    const b = obj(c);
    if (b.type === 'thinking') return { type: 'thinking', text: str(b.thinking) };
    if (b.type === 'toolCall') return { type: 'toolCall', toolCallId: str(b.id), name: str(b.name) };
    return { type: 'text', text: str(b.text) };
  });
}

/** The head of a review note (docs/protocol.md §9.1). Older servers joined the note to the user's message. */
const NOTE_HEAD = '[The user reviewed your edits and undid these changes';

function isGluedNote(b: Record<string, unknown>): boolean {
  return b.type === 'text' && str(b.text).startsWith(NOTE_HEAD);
}

/** A review note an older server joined to a user message: the same marker as a note message. */
function gluedNote(d: Draft, content: unknown): NoticeItem | null {
  if (!Array.isArray(content)) return null;
  const note = content.map((c) => obj(c)).find(isGluedNote);
  if (!note) return null;
  const full = str(note.text);
  return { ...notice(d, 'info', 'told', `pi was told: ${full.split('\n')[1]?.replace(/^- /, '') || 'what you undid'}`), detail: full };
}

/** The user's own words: text blocks, without a review note an older server joined to them. */
function userText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => obj(c))
    .filter((b) => b.type === 'text' && !isGluedNote(b))
    .map((b) => str(b.text))
    .join('');
}

function countImages(content: unknown): number {
  return Array.isArray(content) ? content.filter((c) => obj(c).type === 'image').length : 0;
}

export function normUsage(u: unknown): Usage | null {
  if (!u || typeof u !== 'object') return null;
  const o = u as Record<string, unknown>;
  const cost = o.cost;
  const costNum = typeof cost === 'number' ? cost : num(obj(cost).total) ?? 0;
  return {
    input: num(o.input) ?? 0,
    output: num(o.output) ?? 0,
    cacheRead: num(o.cacheRead) ?? 0,
    cacheWrite: num(o.cacheWrite) ?? 0,
    cost: costNum,
  };
}

function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    cost: a.cost + b.cost,
  };
}

export function fmtTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`;
  return String(n);
}

function obj(x: unknown): Record<string, unknown> {
  return x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : {};
}

function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}

function num(x: unknown): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}
