import type * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { DeliverAs, ViewModel } from './model/types';
import type { Nudge, ProcessRow } from './nudgeRules';

export type { ViewModel } from './model/types';

/**
 * What `activate()` returns: the extension's test (and automation) API.
 *
 * Obtain it with
 * ```js
 * const api = await vscode.extensions.getExtension('pi-lsp.pi-lsp').activate();
 * await api.ready;
 * ```
 *
 * Everything here goes through the same code paths as the panel: `prompt()` is what pressing
 * Enter in the input box does, `webviewMessage()` is what a click in the webview does.
 *
 * **The view model** (`state()`, type `ViewModel` in `src/model/types.ts`) is the reducer's
 * current state for the session the panel shows. Fields the tests may rely on:
 * - `server: {status: 'starting'|'running'|'missing'|'stopped'|'error', message?, command?, source?}`
 *   (`missing` carries the install hint in `message`).
 * - `sessionId: string | null`, `isStreaming: boolean`, `turn: number` (turns of the current or
 *   last run), `lastSeq` (highest `pi/event` seq applied).
 * - `items: Item[]`, the transcript in order. Each item has `kind`, a stable `id` and `rev`:
 *   - `{kind:'user', text, turn, deliveredAs?: 'steer'|'followUp', queuedId?, entryId?}` —
 *     `turn` is the run's 1-based turn in which the message was delivered;
 *   - `{kind:'assistant', blocks: [{type:'text'|'thinking', text} | {type:'toolCall', toolCallId, name}],
 *      streaming, stopReason?, errorMessage?, usage?, turn}`;
 *   - `{kind:'tool', toolCallId, toolName, args, title, status: 'pending'|'running'|'done'|'error',
 *      summary, output, diff?, turn}`;
 *   - `{kind:'permission', requestKey, toolCallId, tool, title, detail, options: [{id,label,kind}],
 *      status: 'pending'|'answered'|'withdrawn', answer?}`;
 *   - `{kind:'notice', level, topic: 'retry'|'compaction'|'save'|'restore'|'reconnect'|'info'|'told', text,
 *      restoreId?, detail?}` (`told`: a note pi gave the model, e.g. the review note, §9.1; `detail` its full text).
 * - `queue: {steering: [{id, text}], followUp: [{id, text}]}` (from `queue_update`, §7).
 * - `permissions`: the pending `permission` items.
 * - `review: [{uri, hunks: [{id, toolCallId, range, oldText, newText}]}]` (from `review_update`, §9).
 * - `checkpoints: [{entryId, text, timestamp, files}]` (from `pi/checkpoints`, §9.5).
 * - `usage: {input, output, cacheRead, cacheWrite, cost}`, `contextTokens`, `contextWindow`,
 *   `model: {provider?, id, name?, contextWindow?}`, `thinkingLevel`.
 * - `features: {queue, interrupt, review, checkpoints, models, permissions}`: which v2 server
 *   features the server declared in its `initialize` answer (`capabilities.experimental.pi`;
 *   controls for missing ones are hidden).
 *
 * The object returned by `state()` is immutable (the reducer returns a new one on every change);
 * keep a reference to compare, never mutate it.
 */
export interface PiApi {
  /** The running language client (`undefined` until the server was found and started). */
  readonly client: LanguageClient | undefined;

  /**
   * Settles once start-up is over: resolves when the language client runs and the panel's
   * session is attached, **or** when the server could not be found / failed to start (then
   * `state().server.status` is `'missing'` or `'error'` with the reason in `message`). It never
   * rejects and never hangs on a missing server. After `restartServer()` it is replaced by a
   * new promise for the new start.
   */
  readonly ready: Promise<void>;

  /** The current view model (see above). Cheap: returns the reducer's current object. */
  state(): ViewModel;

  /**
   * Send input exactly as the panel's input box does. While a run is active `deliverAs`
   * chooses steer (default: the `pi.input.enterAction` setting) / `followUp` / `interrupt`;
   * on an idle session it is a plain prompt. Resolves with the server's result
   * `{sessionId, delivered}` once the server accepted it (not when the run ends).
   * `attachments` are docs/protocol.md §10 attachments (`{uri, range?}`, `{diagnostics:{uri,items}}`).
   */
  prompt(
    text: string,
    deliverAs?: DeliverAs,
    attachments?: unknown[],
  ): Promise<{ sessionId: string; delivered: string }>;

  /** Stop the run (`pi/abort`). Never sends the queue. Resolves with `{aborted}`. */
  abort(): Promise<{ aborted: boolean }>;

  /** Start a new session and show it (the panel's "New session"). Resolves with its id. */
  newSession(): Promise<string>;

  /** Resume a stored session and show its transcript. */
  resumeSession(sessionId: string): Promise<void>;

  /**
   * Feed one webview→extension message through the same schema validation and handler the
   * real webview uses, e.g. `{type:'permission', requestKey, optionId, reason?}`,
   * `{type:'review', decisions:[{hunkId, decision:'keep'|'undo', reason?}]}`,
   * `{type:'restore', entryId, mode:'code'|'conversation'|'both'}`, `{type:'undoRestore', restoreId}`,
   * `{type:'revertToolCall', toolCallId}`,
   * `{type:'queue', op:'remove'|'edit'|'promote'|'clear', id?, text?}`,
   * `{type:'send', text, deliverAs?}`, `{type:'stop'}`. The full list is `WebviewMessage` in
   * `src/protocol/messages.ts`. Rejects when the message fails validation; otherwise resolves
   * with the handler's result.
   */
  webviewMessage(msg: unknown): Promise<unknown>;

  /** Re-run server discovery and restart the client (the "Retry" action / `pi.restartServer`). */
  restartServer(): Promise<void>;

  /** Called after every view-model change (and on server status changes). */
  onDidChange: vscode.Event<ViewModel>;

  /** The nudges shown so far (`src/nudgeRules.ts` `Nudge`: kind, text …), oldest first. */
  nudges(): readonly Nudge[];

  /** The panel view's badge count (permissions and questions waiting; 0 when hidden). */
  badge(): number;

  /** The background processes view's rows (`pi/processes`, `processes_update`). */
  processes(): readonly ProcessRow[];

  /** Stop one background process, as the view's stop button does. */
  stopProcess(id: string): Promise<void>;
}
