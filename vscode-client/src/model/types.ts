// The panel's view model: what the transcript, queue, review list and status line show.
// Produced only by the pure reducer (reducer.ts) from server events and requests' results;
// the extension host and the webview run the same reducer on the same actions.
// Field names here are a contract with the extension-host tests (see api.ts).

import type { PiEvent, SessionSummary, TodoEntry, TurnEndEvent, TurnEndRefsEvent } from '../protocol/generated';

/** The language server's life as the extension sees it. */
export type ServerStatus = 'starting' | 'running' | 'missing' | 'stopped' | 'error';

export interface ServerInfo {
  status: ServerStatus;
  /** Human-readable detail: the missing-server hint, the crash reason, the command used. */
  message?: string;
  /** The command line that was (or would be) started, e.g. `/repo/.venv/bin/pi-lsp`. */
  command?: string;
  /** Where discovery found it: `setting` | `python` | `venv` | `path`. */
  source?: string;
}

/** A server feature the panel found (v2 requests answer MethodNotFound until built). */
export interface Features {
  queue: boolean; // pi/queue (§7)
  interrupt: boolean; // deliverAs "interrupt" (§7)
  review: boolean; // pi/review, pi/reviewDecision (§9)
  checkpoints: boolean; // pi/checkpoints, pi/restore (§9.5)
  models: boolean; // pi/models, pi/setModel (§11)
  permissions: boolean; // pi/requestPermission is sent to us (§8)
}

export interface QueueEntry {
  id: string;
  text: string;
}

export interface Queue {
  steering: QueueEntry[];
  followUp: QueueEntry[];
}

export type DeliverAs = 'steer' | 'followUp' | 'interrupt';

export interface UserItem {
  kind: 'user';
  /** Stable id within the transcript (`u<n>`). */
  id: string;
  text: string;
  /** Number of images sent with the message. */
  images: number;
  /** 1-based turn of the current run in which it was delivered (0 = before any turn). */
  turn: number;
  /** Set when this message came out of the queue (§7): `steer` | `followUp`. */
  deliveredAs?: 'steer' | 'followUp';
  queuedId?: string;
  /** Session-file entry id: the checkpoint / fork point, when known. */
  entryId?: string;
  rev: number;
}

export type AssistantBlock =
  | { type: 'text'; text: string }
  | { type: 'thinking'; text: string }
  | { type: 'toolCall'; toolCallId: string; name: string };

export interface Usage {
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  /** Dollars. */
  cost: number;
}

export interface AssistantItem {
  kind: 'assistant';
  id: string;
  /** Content blocks by the server's contentIndex. */
  blocks: AssistantBlock[];
  streaming: boolean;
  /** `stop` | `length` | `toolUse` | `error` | `aborted` once ended. */
  stopReason?: string;
  errorMessage?: string;
  usage?: Usage;
  model?: string;
  turn: number;
  rev: number;
}

export type ToolStatus = 'pending' | 'running' | 'done' | 'error';

export interface DiffLine {
  op: ' ' | '+' | '-';
  text: string;
}

export interface ToolItem {
  kind: 'tool';
  /** `t:<toolCallId>`. */
  id: string;
  toolCallId: string;
  toolName: string;
  args: Record<string, unknown>;
  /** The card's title: `read src/app.py`, `bash pytest -x`. */
  title: string;
  status: ToolStatus;
  /** One line: the first line of the result or error. */
  summary: string;
  /** Output text kept for display: the head and the tail when long (`outputCut` lines cut). */
  output: string;
  outputLines: number;
  outputCut: number;
  /** Inline diff for `edit` / `write`. */
  diff?: DiffLine[];
  turn: number;
  rev: number;
  /** A `task` call's child agent (docs/subagents.md): its state and live transcript. */
  child?: ChildView;
}

/** One entry of a child's transcript: its text, or one of its tool calls. */
export interface ChildEntry {
  kind: 'text' | 'tool';
  text: string;
  status?: ToolStatus;
  toolCallId?: string;
}

export interface ChildView {
  /** The child's session id. */
  id: string;
  agent: string;
  description: string;
  state: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'disconnected';
  usage?: { turns?: number; input?: number; output?: number; cost?: number };
  entries: ChildEntry[];
}

export interface NoticeItem {
  kind: 'notice';
  id: string;
  level: 'info' | 'warning' | 'error';
  /** `retry` | `compaction` | `save` | `restore` | `reconnect` | `info` | `told`. */
  topic: string;
  text: string;
  /** For a restore notice: the id `pi/undoRestore` takes. */
  restoreId?: string;
  /** For a `told` notice (a note the model was given, not the user's words): its full text. */
  detail?: string;
  rev: number;
}

export interface PermissionItem {
  kind: 'permission';
  /** `p:<requestKey>`. */
  id: string;
  /** Extension-side key of the pending request (pass it back in the answer). */
  requestKey: string;
  toolCallId: string;
  tool: string;
  title: string;
  detail: string;
  options: { id: string; label: string; kind: string }[];
  status: 'pending' | 'answered' | 'withdrawn';
  /** The chosen option's label once answered. */
  answer?: string;
  rev: number;
}

/** A question the agent's `ask` tool put to the user (`pi/ask`). */
export interface QuestionItem {
  kind: 'question';
  /** `q:<requestKey>`. */
  id: string;
  /** Extension-side key of the pending request (pass it back in the answer). */
  requestKey: string;
  toolCallId: string;
  question: string;
  options: { label: string; description?: string }[];
  allowFreeText: boolean;
  multiSelect: boolean;
  status: 'pending' | 'answered' | 'dismissed' | 'withdrawn';
  /** What the user answered, as shown once answered. */
  answer?: string;
  rev: number;
}

export type Item = UserItem | AssistantItem | ToolItem | NoticeItem | PermissionItem | QuestionItem;

/** One entry of the agent's todo list (`todo_update`, `pi/state.todo`) and one row of
 * `pi/sessions`: the wire types themselves. */
export type { SessionSummary, TodoEntry };

export type Mode = 'plan' | 'act';

export interface Hunk {
  id: string;
  toolCallId?: string;
  range: { start: { line: number; character: number }; end: { line: number; character: number } };
  oldText: string;
  newText: string;
}

export interface ReviewFile {
  uri: string;
  hunks: Hunk[];
}

export interface Checkpoint {
  entryId: string;
  text: string;
  timestamp?: string | number;
  files: string[];
}

export interface ModelRef {
  provider?: string;
  id: string;
  name?: string;
  contextWindow?: number;
}

/** One MCP server as `pi/mcp` / `pi/state.mcp` lists it (docs/protocol.md §14). */
export interface McpServerRow {
  name: string;
  source: string;
  transport: string;
  target: string;
  state: string;
  message?: string;
  toolCount: number;
}

export interface ViewModel {
  server: ServerInfo;
  features: Features;
  sessionId: string | null;
  /** Highest `pi/event` seq applied for this session (null: none yet / unknown after a resume). */
  lastSeq: number | null;
  /** Set while a seq gap is being repaired with `pi/replay` (afterSeq asked for). */
  replayAfter: number | null;
  isStreaming: boolean;
  /** Turns of the current (or last) run, counted by `turn_start`. */
  turn: number;
  items: Item[];
  queue: Queue;
  /** Prompts sent before the server was ready: the extension holds them and sends them, in
   * order, once it runs (src/controller/hold.ts); the transcript shows them as waiting. */
  waiting: QueueEntry[];
  /** Pending permission questions (also shown inline as `permission` items). */
  permissions: PermissionItem[];
  /** Pending `ask` questions (also shown inline as `question` items). */
  questions: QuestionItem[];
  /** The session's mode (`pi/setMode`, `mode_update`). */
  mode: Mode;
  /** The agent's todo list, whole (`todo_update`). */
  todo: TodoEntry[];
  /** The session's last run was in plan mode and has ended: "Start with this plan" applies. */
  planReady: boolean;
  review: ReviewFile[];
  checkpoints: Checkpoint[];
  /** Session totals: from `pi/state` when the server reports them, else summed per message. */
  usage: Usage;
  contextTokens: number | null;
  contextWindow: number | null;
  model: ModelRef | null;
  thinkingLevel: string | null;
  /** The MCP servers (state, tool count), from `pi/state.mcp` / `pi/mcp`. */
  mcp: McpServerRow[];
  compacting: boolean;
  /** Events that arrived after a seq gap, waiting for `pi/replay` to fill it (internal). */
  held: { seq: number; event: WireEvent }[];
  /** Next transcript id number (internal: keeps ids identical in the host and the webview). */
  nextId: number;
  /** Bumped on every change; the renderer compares item `rev`s. */
  rev: number;
}

/**
 * A `pi/event`'s `event` as the reducer takes it: the wire's discriminated union `PiEvent`
 * (generated from the server's declarations, pi_lsp/wire_events.py), with `turn_end` slimmed
 * to its type (`slimEvent`: nothing reads its messages). A kind a newer server adds reaches
 * the reducer too and is ignored there.
 */
export type WireEvent = Exclude<PiEvent, TurnEndEvent | TurnEndRefsEvent> | { type: 'turn_end' };
