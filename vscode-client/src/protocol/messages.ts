// Messages between the webview and the extension host. Every message from the webview is
// validated against these schemas before anything acts on it (the webview is treated as
// untrusted: it renders model output). Small hand-written checks, no eval, no dependency.

import type { Action } from '../model/reducer';
import type { ViewModel } from '../model/types';
import type { CommandInfo, ContextResult, ImageParam, ModelInfo, ModelRef, PromptParams, QueueOpParams, SessionSummary, SetModeParams } from './generated';

// Shapes the server defines come from `generated.ts` (generated from the server's models:
// `npm run gen:protocol`); the webview ⇄ host envelopes below are this extension's own.
type DeliverAs = NonNullable<PromptParams['deliverAs']>;

type Check = (v: unknown, path: string) => string | null;

const isObj = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

const S = {
  str:
    (max = 1_000_000): Check =>
    (v, p) =>
      typeof v !== 'string' ? `${p} must be a string` : v.length > max ? `${p} is too long` : null,
  num: (): Check => (v, p) => (typeof v === 'number' && Number.isFinite(v) ? null : `${p} must be a number`),
  bool: (): Check => (v, p) => (typeof v === 'boolean' ? null : `${p} must be a boolean`),
  oneOf:
    (...vals: string[]): Check =>
    (v, p) =>
      typeof v === 'string' && vals.includes(v) ? null : `${p} must be one of ${vals.join(', ')}`,
  opt:
    (c: Check): Check =>
    (v, p) =>
      v === undefined ? null : c(v, p),
  arr:
    (c: Check, max = 1000): Check =>
    (v, p) => {
      if (!Array.isArray(v)) return `${p} must be a list`;
      if (v.length > max) return `${p} has too many entries`;
      for (let i = 0; i < v.length; i++) {
        const e = c(v[i], `${p}[${i}]`);
        if (e) return e;
      }
      return null;
    },
  obj:
    (shape: Record<string, Check>): Check =>
    (v, p) => {
      if (!isObj(v)) return `${p} must be an object`;
      for (const k of Object.keys(v)) if (!(k in shape)) return `${p}.${k} is not allowed`;
      for (const [k, c] of Object.entries(shape)) {
        const e = c(v[k], `${p}.${k}`);
        if (e) return e;
      }
      return null;
    },
  any: (): Check => () => null,
};

const position = S.obj({ line: S.num(), character: S.num() });
const range = S.obj({ start: position, end: position });
const attachment: Check = (v, p) => {
  if (!isObj(v)) return `${p} must be an object`;
  if ('uri' in v) return S.obj({ uri: S.str(4096), range: S.opt(range) })(v, p);
  if ('diagnostics' in v) return S.obj({ diagnostics: S.obj({ uri: S.str(4096), items: S.arr(S.any()) }) })(v, p);
  return `${p} must be a file or diagnostics attachment`;
};

/** The schema of each webview → host message, by `type`. */
const SCHEMAS: Record<string, Check> = {
  ready: S.obj({ type: S.str() }),
  send: S.obj({
    type: S.str(),
    text: S.str(200_000),
    deliverAs: S.opt(S.oneOf('steer', 'followUp', 'interrupt')),
    attachments: S.opt(S.arr(attachment, 50)),
    images: S.opt(S.arr(S.obj({ data: S.str(8_000_000), mimeType: S.oneOf('image/png', 'image/jpeg', 'image/gif', 'image/webp') }), 8)),
  }),
  stop: S.obj({ type: S.str() }),
  stopChild: S.obj({ type: S.str(), childSessionId: S.str(200) }),
  newSession: S.obj({ type: S.str() }),
  listSessions: S.obj({ type: S.str() }),
  resumeSession: S.obj({ type: S.str(), sessionId: S.str(200) }),
  fork: S.obj({ type: S.str(), entryId: S.str(200) }),
  queue: S.obj({
    type: S.str(),
    op: S.oneOf('remove', 'edit', 'promote', 'clear'),
    id: S.opt(S.str(200)),
    text: S.opt(S.str(200_000)),
  }),
  permission: S.obj({ type: S.str(), requestKey: S.str(200), optionId: S.str(200), reason: S.opt(S.str(10_000)) }),
  answer: S.obj({
    type: S.str(),
    requestKey: S.str(200),
    answers: S.arr(S.str(1000), 6),
    text: S.opt(S.str(100_000)),
    cancelled: S.opt(S.bool()),
  }),
  setMode: S.obj({ type: S.str(), mode: S.oneOf('plan', 'act') }),
  review: S.obj({
    type: S.str(),
    decisions: S.arr(
      S.obj({ hunkId: S.str(200), decision: S.oneOf('keep', 'undo'), reason: S.opt(S.str(10_000)) }),
      10_000,
    ),
  }),
  openFile: S.obj({ type: S.str(), uri: S.str(4096), line: S.opt(S.num()) }),
  openHunk: S.obj({ type: S.str(), uri: S.str(4096), hunkId: S.str(200) }),
  restore: S.obj({ type: S.str(), entryId: S.str(200), mode: S.oneOf('code', 'conversation', 'both') }),
  undoRestore: S.obj({ type: S.str(), restoreId: S.str(200) }),
  revertToolCall: S.obj({ type: S.str(), toolCallId: S.str(200) }),
  listModels: S.obj({ type: S.str() }),
  setModel: S.obj({ type: S.str(), provider: S.opt(S.str(200)), model: S.str(500) }),
  setThinking: S.obj({ type: S.str(), level: S.oneOf('off', 'minimal', 'low', 'medium', 'high', 'xhigh') }),
  setEdits: S.obj({ type: S.str(), mode: S.oneOf('apply', 'confirm') }),
  completeFiles: S.obj({ type: S.str(), query: S.str(500), requestId: S.num() }),
  compact: S.obj({ type: S.str() }),
  export: S.obj({ type: S.str() }),
  setApiKey: S.obj({ type: S.str() }),
  openSettings: S.obj({ type: S.str() }),
  retryServer: S.obj({ type: S.str() }),
  installServer: S.obj({ type: S.str() }),
  mcpRestart: S.obj({ type: S.str(), name: S.str(200) }),
  copy: S.obj({ type: S.str(), text: S.str(1_000_000) }),
  reloadContext: S.obj({ type: S.str() }),
};

export type WebviewMessage =
  | { type: 'ready' }
  | {
      type: 'send';
      text: string;
      deliverAs?: DeliverAs;
      attachments?: unknown[];
      images?: ImageParam[];
    }
  | { type: 'stop' }
  | { type: 'stopChild'; childSessionId: string }
  | { type: 'newSession' }
  | { type: 'listSessions' }
  | { type: 'resumeSession'; sessionId: string }
  | { type: 'fork'; entryId: string }
  | { type: 'queue'; op: QueueOpParams['op']; id?: string; text?: string }
  | { type: 'permission'; requestKey: string; optionId: string; reason?: string }
  | { type: 'answer'; requestKey: string; answers: string[]; text?: string; cancelled?: boolean }
  | { type: 'setMode'; mode: SetModeParams['mode'] }
  | { type: 'review'; decisions: { hunkId: string; decision: 'keep' | 'undo'; reason?: string }[] }
  | { type: 'openFile'; uri: string; line?: number }
  | { type: 'openHunk'; uri: string; hunkId: string }
  | { type: 'restore'; entryId: string; mode: 'code' | 'conversation' | 'both' }
  | { type: 'undoRestore'; restoreId: string }
  | { type: 'revertToolCall'; toolCallId: string }
  | { type: 'listModels' }
  | { type: 'setModel'; provider?: string; model: string }
  | { type: 'setThinking'; level: string }
  | { type: 'setEdits'; mode: 'apply' | 'confirm' }
  | { type: 'completeFiles'; query: string; requestId: number }
  | { type: 'compact' }
  | { type: 'export' }
  | { type: 'setApiKey' }
  | { type: 'openSettings' }
  | { type: 'retryServer' }
  | { type: 'installServer' }
  | { type: 'mcpRestart'; name: string }
  | { type: 'copy'; text: string }
  | { type: 'reloadContext' };

/** Validate an untrusted message from the webview; throws with the reason when it is bad. */
export function parseWebviewMessage(raw: unknown): WebviewMessage {
  if (!isObj(raw) || typeof raw.type !== 'string') throw new Error('webview message: not an object with a type');
  const schema = SCHEMAS[raw.type];
  if (!schema) throw new Error(`webview message: unknown type ${JSON.stringify(raw.type).slice(0, 40)}`);
  const err = schema(raw, raw.type);
  if (err) throw new Error(`webview message: ${err}`);
  return raw as unknown as WebviewMessage;
}

/** One row of the session list: `pi/sessions` as the server sends it. */
export type SessionRow = SessionSummary;

/** One row of the model picker: what the panel reads of a `pi/models` entry. */
export type ModelRow = Pick<ModelInfo, 'provider' | 'id' | 'name'> & Partial<Pick<ModelInfo, 'contextWindow' | 'reasoning'>>;

/** Host → webview messages (trusted direction; the webview still type-checks `type`). */
export type HostMessage =
  | { type: 'snapshot'; vm: ViewModel; settings: PanelSettings }
  | { type: 'actions'; actions: Action[] }
  | { type: 'sessions'; sessions: SessionRow[]; currentId: string | null }
  | { type: 'models'; models: ModelRow[]; current: ModelRef | null }
  | { type: 'files'; requestId: number; files: string[] }
  | { type: 'symbols'; requestId: number; symbols: SymbolChoice[] }
  | { type: 'insert'; text: string; focus: boolean }
  | { type: 'setInput'; text: string }
  | { type: 'settings'; settings: PanelSettings }
  | { type: 'toast'; level: 'info' | 'warning' | 'error'; text: string }
  | { type: 'resources'; commands: CommandInfo[]; context: ContextResult | null };

/** One workspace symbol the composer's `@` completion offers (the host's `symbols` answer). */
export interface SymbolChoice {
  /** What picking it inserts after the `@`: `path#Lx-y`, the symbol's whole range, 1-based. */
  insert: string;
  name: string;
  /** LSP's SymbolKind by name ("function", "class", …). */
  kind: string;
  container?: string;
  /** Workspace-relative. */
  path: string;
}

export interface PanelSettings {
  /** What Enter does while a run is active. */
  enterAction: DeliverAs;
  /** A key is stored for the configured provider. */
  hasApiKey: boolean;
  /** `pi.edits`: apply at once (then review) or confirm each edit first. */
  edits: 'apply' | 'confirm';
}
