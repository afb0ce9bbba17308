// The extension's one controller: owns the view model (through the pure reducer) and composes
// the parts that talk to the server (src/controller/: server lifecycle, sessions, run & queue,
// questions & permissions, review, checkpoints, models & MCP). Panels (webview view / editor
// tab), CodeLens and commands talk to it; it never moves the user's focus or cursor.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import { Asks } from './controller/asks';
import { CheckpointControl } from './controller/checkpoints';
import { ContextControl } from './controller/context';
import { type Host, updateSetting } from './controller/host';
import { connectionOf, ServerLifecycle } from './controller/lifecycle';
import { ModelControl } from './controller/models';
import { ReviewControl, type Decision } from './controller/review';
import { enterAction, RunControl, type Sent } from './controller/run';
import { Sessions } from './controller/sessions';
import { postSnapshot } from './controller/snapshot';
import { LspQuery } from './lsp/query';
import { wantsSymbols } from './lsp/symbolMentions';
import { symbolSearch } from './lsp/workspaceSymbols';
import { type Action, type Effect, initialState, reduce } from './model/reducer';
import type { DeliverAs, ViewModel, WireEvent } from './model/types';
import { PiClient } from './protocol/client';
import type { ServerFeatures } from './protocol/features';
import type { ImageParam } from './protocol/generated';
import { type HostMessage, parseWebviewMessage, type WebviewMessage } from './protocol/messages';

export { secretName } from './controller/lifecycle';

export type Broadcast = (msg: HostMessage) => void;

export class Controller implements vscode.Disposable, Host {
  private vm: ViewModel = initialState();
  private readonly changed = new vscode.EventEmitter<ViewModel>();
  readonly onDidChange = this.changed.event;
  private readonly serverEvent = new vscode.EventEmitter<WireEvent>();
  /** Every `pi/event` of the current session, as it arrives (the processes view listens). */
  readonly onServerEvent = this.serverEvent.event;
  private listeners: Broadcast[] = [];
  private disposables: vscode.Disposable[] = [];
  /** Text for the input box that arrived before any panel existed (delivered on `ready`). */
  private pendingInsert: HostMessage[] = [];

  private readonly server: ServerLifecycle;
  private readonly asks = new Asks(this);
  private readonly review = new ReviewControl(this, () => this.client);
  private readonly checkpoints = new CheckpointControl(this);
  private readonly models = new ModelControl(this);
  private readonly resources = new ContextControl(this);
  private readonly sessions = new Sessions(this, { review: this.review, checkpoints: this.checkpoints, models: this.models });
  private readonly run = new RunControl(this, this.asks, {
    attaching: () => this.sessions.attaching(),
    newSession: () => this.sessions.newSession(),
  });

  private readonly lspQuery = new LspQuery();
  private readonly symbols = symbolSearch();

  constructor(
    readonly context: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
  ) {
    this.server = new ServerLifecycle(this, output, {
      handlers: {
        event: (raw) => {
          const note = this.sessions.event(raw);
          this.review.noteEvent(note);
          this.resources.noteEvent(note);
          if (raw && raw.sessionId === this.vm.sessionId && raw.event) this.serverEvent.fire(raw.event as WireEvent);
        },
        saveDocuments: (params) => this.review.saveDocuments(params),
        requestPermission: (params, token) => this.asks.askPermission(params, token),
        ask: (params, token) => this.asks.askQuestion(params, token),
        lspQuery: (params) => this.lspQuery.answer(params),
      },
      attach: (reconnect) => this.sessions.attach(reconnect),
      disconnected: () => this.sessions.disconnected(),
    });
    this.disposables.push(this.changed, this.serverEvent);
    this.disposables.push(vscode.languages.onDidChangeDiagnostics((e) => this.review.forwardDiagnostics(e.uris)));
  }

  // ------------------------------------------------------------------ view model (Host)

  state(): ViewModel {
    return this.vm;
  }

  /** Apply actions, broadcast them to the webviews, run the effects. */
  dispatch(...actions: Action[]): void {
    const effects: Effect[] = [];
    for (const a of actions) {
      const r = reduce(this.vm, a);
      this.vm = r.vm;
      effects.push(...r.effects);
    }
    this.post({ type: 'actions', actions });
    this.changed.fire(this.vm);
    for (const e of effects) void this.runEffect(e);
  }

  addListener(fn: Broadcast): vscode.Disposable {
    this.listeners.push(fn);
    return new vscode.Disposable(() => {
      this.listeners = this.listeners.filter((l) => l !== fn);
    });
  }

  post(msg: HostMessage): void {
    if (msg.type === 'insert' && this.listeners.length === 0) this.pendingInsert.push(msg);
    for (const l of this.listeners) l(msg);
  }

  private async runEffect(e: Effect): Promise<void> {
    try {
      if (e.type === 'replay') await this.sessions.replay(e.sessionId, e.afterSeq);
      else if (e.type === 'reload') await this.loadSession(e.sessionId);
      else if (e.type === 'refresh') await this.refresh(e.sessionId);
    } catch (err) {
      this.log(`effect ${e.type} failed: ${String(err)}`);
    }
  }

  log(line: string): void {
    this.output.info(line);
  }

  /** The typed pi/* client of the running server; throws when there is none. */
  rpc(): PiClient {
    const c = this.client;
    if (!c || !c.isRunning()) throw new Error('pi: the server is not running');
    return new PiClient(connectionOf(c));
  }

  features(): ServerFeatures {
    return this.server.features;
  }

  // ------------------------------------------------------------------ server

  get client(): LanguageClient | undefined {
    return this.server.client;
  }

  /** Settles once start-up is over (see `PiApi.ready`). */
  get ready(): Promise<void> {
    return this.server.ready;
  }

  start(): Promise<void> {
    return this.server.start();
  }

  restart(): Promise<void> {
    return this.server.restart();
  }

  async setApiKey(): Promise<void> {
    if (!(await this.server.setApiKey())) return;
    this.postSettings();
    await this.restart();
  }

  hasApiKey(): Promise<boolean> {
    return this.server.hasApiKey();
  }

  // ------------------------------------------------------------------ what commands and panels ask for

  prompt(text: string, deliverAs?: DeliverAs, attachments?: unknown[], context?: unknown, images?: ImageParam[]): Promise<Sent> {
    return this.run.prompt(text, deliverAs, attachments, context, images);
  }

  abort(): Promise<{ aborted: boolean }> {
    return this.run.abort();
  }

  async compact(): Promise<unknown> {
    const sessionId = this.vm.sessionId;
    return sessionId ? this.rpc().compact({ sessionId }) : undefined;
  }

  newSession(): Promise<string> {
    return this.sessions.newSession();
  }

  /** Load the project's context files, skills and templates again (pi/reload). */
  reloadContext(): Promise<void> {
    return this.resources.reload();
  }

  /** `/export`, "pi: Export session": the session as an HTML page, opened in the browser. */
  async exportSession(): Promise<string | undefined> {
    const sessionId = this.vm.sessionId;
    if (!sessionId) {
      void vscode.window.showInformationMessage('pi: no session to export yet.');
      return undefined;
    }
    if (!this.features().has('export')) {
      void vscode.window.showInformationMessage('pi: this server cannot export sessions (update pi-lsp).');
      return undefined;
    }
    const { path } = await this.rpc().export({ sessionId });
    this.log(`exported session ${sessionId} to ${path}`);
    void vscode.window.showInformationMessage(`pi: session exported to ${path}`);
    void vscode.env.openExternal(vscode.Uri.file(path)); // the default browser (a desktop VS Code)
    return path;
  }

  loadSession(sessionId: string): Promise<void> {
    return this.sessions.load(sessionId);
  }

  refresh(sessionId: string): Promise<void> {
    return this.sessions.refresh(sessionId);
  }

  listSessions(): Promise<void> {
    return this.sessions.list();
  }

  manageRules(): Promise<void> {
    return this.asks.manageRules();
  }

  reviewDecision(decisions: Decision[]): Promise<unknown> {
    return this.review.decide(decisions);
  }

  /** Files the agent touched in this window (diagnostics are forwarded for them). */
  touched(): ReadonlySet<string> {
    return this.review.touched();
  }

  // ------------------------------------------------------------------ webview messages

  /** Validate and handle one message from a webview (or from the test API). */
  async handleWebviewMessage(raw: unknown): Promise<unknown> {
    const msg: WebviewMessage = parseWebviewMessage(raw);
    switch (msg.type) {
      case 'ready': {
        await postSnapshot((m) => this.post(m), () => this.vm, () => this.panelSettings());
        const inserts = this.pendingInsert;
        this.pendingInsert = [];
        for (const m of inserts) this.post(m);
        this.resources.publish();
        // a panel opened (or reloaded) after the server started missed the model list
        return this.models.list();
      }
      case 'send':
        return this.run.prompt(msg.text, msg.deliverAs, msg.attachments, undefined, msg.images);
      case 'stop':
        return this.run.abort();
      case 'stopChild':
        return this.rpc().abort({ sessionId: msg.childSessionId });
      case 'newSession':
        return this.sessions.newSession();
      case 'listSessions':
        return this.sessions.list();
      case 'resumeSession':
        return this.sessions.load(msg.sessionId);
      case 'fork':
        return this.sessions.fork(msg.entryId);
      case 'queue':
        return this.run.queueOp(msg.op, msg.id, msg.text);
      case 'permission':
        return this.asks.answerPermission(msg.requestKey, msg.optionId, msg.reason);
      case 'answer':
        return this.asks.answerQuestion(msg.requestKey, msg.answers, msg.text, msg.cancelled);
      case 'setMode':
        return this.run.setMode(msg.mode);
      case 'review':
        return this.review.decide(msg.decisions);
      case 'openFile':
        return this.openFile(msg.uri, msg.line);
      case 'openHunk':
        return this.openHunk(msg.uri, msg.hunkId);
      case 'restore':
        return this.checkpoints.restore(msg.entryId, msg.mode);
      case 'undoRestore':
        return this.checkpoints.undoRestore(msg.restoreId);
      case 'revertToolCall':
        return this.checkpoints.revertToolCall(msg.toolCallId);
      case 'listModels':
        return this.models.list();
      case 'setModel':
        return this.models.setModel(msg.model, msg.provider);
      case 'setThinking':
        return this.models.setThinking(msg.level);
      case 'setEdits':
        await updateSetting('edits', msg.mode);
        this.postSettings();
        return undefined;
      case 'completeFiles':
        return this.completeFiles(msg.query, msg.requestId);
      case 'compact':
        return this.compact();
      case 'export':
        return this.exportSession();
      case 'setApiKey':
        return this.setApiKey();
      case 'openSettings':
        return vscode.commands.executeCommand('workbench.action.openSettings', '@ext:pi-lsp.pi-lsp');
      case 'retryServer':
        return this.restart();
      case 'installServer':
        return vscode.commands.executeCommand('pi.installServer');
      case 'mcpRestart':
        return this.models.restartMcp(msg.name);
      case 'copy':
        return vscode.env.clipboard.writeText(msg.text);
      case 'reloadContext':
        return this.resources.reload();
    }
  }

  async panelSettings(): Promise<{ enterAction: DeliverAs; hasApiKey: boolean; edits: 'apply' | 'confirm' }> {
    const edits = vscode.workspace.getConfiguration('pi').get<string>('edits') === 'confirm' ? 'confirm' : 'apply';
    return { enterAction: enterAction(), hasApiKey: await this.hasApiKey(), edits };
  }

  postSettings(): void {
    void this.panelSettings().then((settings) => this.post({ type: 'settings', settings }));
  }

  /** Open a file beside, without taking focus from the panel unless the user clicked it. */
  private async openFile(uri: string, line?: number): Promise<void> {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    const u = /^[a-z][a-z0-9+.-]+:/i.test(uri)
      ? vscode.Uri.parse(uri)
      : uri.startsWith('/') || !root
        ? vscode.Uri.file(uri)
        : vscode.Uri.joinPath(root, uri);
    const sel = line !== undefined ? new vscode.Range(line, 0, line, 0) : undefined;
    await vscode.window.showTextDocument(u, { preview: true, preserveFocus: false, selection: sel });
  }

  private async openHunk(uri: string, hunkId: string): Promise<void> {
    const file = this.vm.review.find((f) => f.uri === uri);
    const h = file?.hunks.find((x) => x.id === hunkId);
    await this.openFile(uri, h?.range.start.line);
  }

  private async completeFiles(query: string, requestId: number): Promise<void> {
    // symbols (debounced, the newest query only) while the files are found
    if (wantsSymbols(query)) this.symbols.request(query, (symbols) => this.post({ type: 'symbols', requestId, symbols }));
    else this.symbols.cancel();
    const q = query.replace(/[[\]{}*?]/g, '');
    const glob = q.includes('/') ? `${q}*` : `**/*${q}*`;
    const found = await vscode.workspace.findFiles(glob, '**/{node_modules,.git,.venv,dist,build}/**', 40);
    const rel = found.map((u) => vscode.workspace.asRelativePath(u, false)).sort((a, b) => a.length - b.length);
    this.post({ type: 'files', requestId, files: rel.slice(0, 20) });
  }

  dispose(): void {
    this.symbols.cancel();
    this.asks.dispose();
    this.models.dispose();
    this.resources.dispose();
    void this.server.stopClient();
    for (const d of this.disposables) d.dispose();
  }
}
