// The extension's one controller: owns the language client, the view model (through the pure
// reducer), and every request to the server. Panels (webview view / editor tab), CodeLens and
// commands talk to it; it never moves the user's focus or cursor.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { Discovery } from './discovery';
import { type Action, type Effect, initialState, reduce } from './model/reducer';
import { slimEvent } from './model/tools';
import type { DeliverAs, ReviewFile, ViewModel } from './model/types';
import type {
  AskResult,
  ModelsResult,
  QueueResult,
  RequestPermissionResult,
  ResumeResult,
  SaveDocumentsParams,
  SaveDocumentsResult,
  SessionIdResult,
  SessionsResult,
  SetModeResult,
} from './protocol/generated';
import { type HostMessage, parseWebviewMessage, type WebviewMessage } from './protocol/messages';
import { backgroundTransport, createClient, discoverServer, serverMode, type ServerMode, stopBackground, type Transport } from './server';
import { apiKeyVariable } from './settings';

const METHOD_NOT_FOUND = -32601;
const LAST_SESSION_KEY = 'pi.lastSessionId';

export type Broadcast = (msg: HostMessage) => void;

interface PendingPermission {
  resolve(answer: { optionId: string; reason?: string }): void;
  options: { id: string; label: string }[];
}

interface PendingQuestion {
  resolve(answer: { answers?: string[]; text?: string; cancelled?: boolean }): void;
}

export class Controller implements vscode.Disposable {
  private vm: ViewModel = initialState();
  private readonly changed = new vscode.EventEmitter<ViewModel>();
  readonly onDidChange = this.changed.event;
  client: LanguageClient | undefined;
  ready: Promise<void> = Promise.resolve();
  private listeners: Broadcast[] = [];
  private disposables: vscode.Disposable[] = [];
  private clientDisposables: vscode.Disposable[] = [];
  private permissionWaiters = new Map<string, PendingPermission>();
  private permissionCounter = 0;
  private questionWaiters = new Map<string, PendingQuestion>();
  private questionCounter = 0;
  private replaying = false;
  private wasRunning = false;
  /** The last seq seen before the connection dropped (a server that kept running continues it). */
  private seqAtDisconnect: number | null = null;
  private attaching: Promise<void> | null = null;
  private touchedFiles = new Set<string>();
  /** Set once a v2 request answered MethodNotFound, so the control stays hidden. */
  private missing = new Set<string>();

  constructor(
    private readonly context: vscode.ExtensionContext,
    readonly output: vscode.LogOutputChannel,
  ) {
    this.disposables.push(this.changed);
    this.disposables.push(
      vscode.languages.onDidChangeDiagnostics((e) => this.forwardDiagnostics(e.uris)),
    );
  }

  // ------------------------------------------------------------------ view model

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

  /** Text for the input box that arrived before any panel existed (delivered on `ready`). */
  private pendingInsert: HostMessage[] = [];

  post(msg: HostMessage): void {
    if (msg.type === 'insert' && this.listeners.length === 0) this.pendingInsert.push(msg);
    for (const l of this.listeners) l(msg);
  }

  private async runEffect(e: Effect): Promise<void> {
    try {
      if (e.type === 'replay') {
        if (this.replaying) return;
        this.replaying = true;
        try {
          const r = await this.request<{ events: never[]; complete: boolean }>('pi/replay', {
            sessionId: e.sessionId,
            afterSeq: e.afterSeq,
          });
          const events = (r.events ?? []).map((n: { sessionId: string; seq: number; event: { type: string } }) => ({
            ...n,
            event: slimEvent(n.event),
          }));
          this.dispatch({ type: 'replay', sessionId: e.sessionId, events, complete: r.complete !== false });
        } finally {
          this.replaying = false;
        }
      } else if (e.type === 'reload') {
        await this.loadSession(e.sessionId);
      } else if (e.type === 'refresh') {
        await this.refresh(e.sessionId);
      }
    } catch (err) {
      this.log(`effect ${e.type} failed: ${String(err)}`);
    }
  }

  log(line: string): void {
    this.output.info(line);
  }

  // ------------------------------------------------------------------ server lifecycle

  /** Discover the server and start the client; `ready` settles when that is over. */
  start(): Promise<void> {
    this.ready = this.doStart();
    return this.ready;
  }

  private restarting: Promise<void> = Promise.resolve();

  /** Stop and start again (serialised: two quick restarts never race). */
  restart(): Promise<void> {
    this.restarting = this.restarting.then(async () => {
      await this.stopClient();
      // A background server outlives its connections: a restart ends it (new command, args
      // or key), aborting and saving what runs there.
      if (serverMode() === 'background' && (await stopBackground())) this.log('stopped the background server');
      this.wasRunning = false;
      // Another server (or a newer one) may have other features: detect them again.
      this.missing.clear();
      this.dispatch({ type: 'features', features: { queue: false, interrupt: false, review: false, checkpoints: false, models: false } });
      await this.start();
    });
    return this.restarting;
  }

  private async stopClient(): Promise<void> {
    const c = this.client;
    this.client = undefined;
    for (const d of this.clientDisposables) d.dispose();
    this.clientDisposables = [];
    if (c) {
      try {
        await c.stop(3000);
      } catch {
        // already dead
      }
    }
  }

  private async doStart(mode: ServerMode = serverMode()): Promise<void> {
    this.dispatch({ type: 'server', server: { status: 'starting' } });
    let found: Discovery;
    try {
      found = await discoverServer();
    } catch (err) {
      found = { found: false, message: `pi: server discovery failed: ${String(err)}`, installCommand: 'python3 -m pip install pi-lsp' };
    }
    if (!found.found) {
      this.dispatch({ type: 'server', server: { status: 'missing', message: found.message } });
      this.log(found.message);
      void this.showMissing(found.message, found.installCommand);
      return;
    }
    const command = [found.command, ...found.args].join(' ');
    this.log(`${mode === 'background' ? 'connecting to the background' : 'starting'} ${command} --${mode === 'background' ? 'socket' : 'stdio'} (found via ${found.source})`);
    const env = await this.serverEnv();
    const transport: Transport = mode === 'background' ? backgroundTransport(found, env, (l) => this.log(l)) : { kind: 'stdio' };
    const client = createClient(found, {
      output: this.output,
      env,
      // Only the current client's life counts (a client being replaced by restart() is not news).
      onStateChange: (running, stopped) => {
        if (this.client === client) this.onClientState(running, stopped, command, found.source);
      },
      isCurrent: () => this.client === client,
    }, transport);
    this.client = client;
    this.installHandlers(client);
    try {
      await client.start();
    } catch (err) {
      if (mode === 'background') {
        // No background server to be had (another editor is attached to it, no socket
        // support, …): this window gets its own server over stdio.
        this.log(`the background server is not usable (${err instanceof Error ? err.message : String(err)}); using stdio`);
        await this.stopClient();
        return this.doStart('stdio');
      }
      const message = `pi: the server ${command} failed to start: ${err instanceof Error ? err.message : String(err)}`;
      this.dispatch({ type: 'server', server: { status: 'error', message, command, source: found.source } });
      this.log(message);
      void vscode.window.showErrorMessage(message, 'Show log').then((a) => a && this.output.show(true));
      return;
    }
    this.dispatch({ type: 'server', server: { status: 'running', command, source: found.source } });
    this.wasRunning = true;
    await this.attach(false);
  }

  private onClientState(running: boolean, stopped: boolean, command: string, source: string): void {
    if (running && this.wasRunning && this.vm.server.status !== 'running') {
      // The client restarted the server: re-attach to the session without losing the view.
      this.dispatch({ type: 'server', server: { status: 'running', command, source } });
      void this.attach(true);
    } else if (!running && this.vm.server.status === 'running') {
      this.seqAtDisconnect = this.vm.lastSeq;
      this.dispatch(
        { type: 'server', server: { status: stopped ? 'stopped' : 'starting', command, source } },
        { type: 'disconnected', reason: 'The pi server stopped; what was running was interrupted.' },
      );
    }
  }

  private async showMissing(message: string, install: string): Promise<void> {
    const choice = await vscode.window.showErrorMessage(message, 'Retry', 'Copy install command', 'Open settings');
    if (choice === 'Retry') await this.restart();
    else if (choice === 'Copy install command') await vscode.env.clipboard.writeText(install);
    else if (choice === 'Open settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'pi.server');
  }

  /** The stored API key goes to the server only through its process environment. */
  private async serverEnv(): Promise<Record<string, string>> {
    const cfg = vscode.workspace.getConfiguration('pi');
    const provider = cfg.get<string>('provider') || undefined;
    const variable = apiKeyVariable(provider, cfg.get<string>('apiKeyEnv') || undefined);
    if (!provider || !variable) return {};
    const key = await this.context.secrets.get(secretName(provider));
    return key ? { [variable]: key } : {};
  }

  async setApiKey(): Promise<void> {
    const cfg = vscode.workspace.getConfiguration('pi');
    const providers = ['anthropic', 'openai', 'google', 'openrouter', 'groq', 'openai-compatible', 'ollama'];
    const current = cfg.get<string>('provider') || undefined;
    const provider =
      current && providers.includes(current)
        ? current
        : await vscode.window.showQuickPick(providers, { title: 'pi: which provider is the key for?' });
    if (!provider) return;
    const key = await vscode.window.showInputBox({
      title: `pi: API key for ${provider}`,
      prompt: 'Stored in VS Code\'s secret storage and handed to the server in its environment; empty removes it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return;
    if (key.trim()) await this.context.secrets.store(secretName(provider), key.trim());
    else await this.context.secrets.delete(secretName(provider));
    if (!current) await cfg.update('provider', provider, vscode.ConfigurationTarget.Global);
    this.postSettings();
    await this.restart();
  }

  async hasApiKey(): Promise<boolean> {
    const provider = vscode.workspace.getConfiguration('pi').get<string>('provider');
    return provider ? !!(await this.context.secrets.get(secretName(provider))) : false;
  }

  // ------------------------------------------------------------------ requests

  /** A request to the server; throws when there is no running client. */
  async request<T>(method: string, params: unknown): Promise<T> {
    const c = this.client;
    if (!c || !c.isRunning()) throw new Error('pi: the server is not running');
    return (await c.sendRequest(method, params)) as T;
  }

  /** A v2 request: MethodNotFound hides the feature and returns undefined. */
  private async optional<T>(method: string, params: unknown, feature?: keyof ViewModel['features']): Promise<T | undefined> {
    if (this.missing.has(method)) return undefined;
    try {
      const r = await this.request<T>(method, params);
      if (feature && !this.vm.features[feature]) this.dispatch({ type: 'features', features: { [feature]: true } });
      return r;
    } catch (err) {
      if ((err as { code?: number })?.code === METHOD_NOT_FOUND) {
        this.missing.add(method);
        if (feature && this.vm.features[feature]) this.dispatch({ type: 'features', features: { [feature]: false } });
        return undefined;
      }
      throw err;
    }
  }

  private installHandlers(client: LanguageClient): void {
    this.clientDisposables.push(
      client.onNotification('pi/event', (raw: { sessionId: string; seq: number; event: { type: string } }) => {
        const note = { sessionId: raw.sessionId, seq: raw.seq, event: slimEvent(raw.event) };
        this.dispatch({ type: 'event', note });
        const ev = note.event as Record<string, unknown>;
        // Before the edit is applied, so the diagnostics of the edited version get forwarded.
        if (ev.type === 'tool_execution_start' && (ev.toolName === 'edit' || ev.toolName === 'write')) {
          this.noteTouched(ev);
        }
        // The context meter: the server's estimate after every run and compaction (a model
        // that reports no usage — many local servers — would otherwise leave it empty).
        if ((ev.type === 'agent_end' || ev.type === 'compaction_end') && raw.sessionId === this.vm.sessionId) {
          void this.pullState(raw.sessionId);
        }
      }),
      client.onRequest('pi/saveDocuments', async (params: SaveDocumentsParams): Promise<SaveDocumentsResult> => {
        const saved: string[] = [];
        for (const uri of params.uris ?? []) {
          const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
          this.touchedFiles.add(uri);
          if (!doc) continue;
          if (!doc.isDirty || (await doc.save())) saved.push(uri);
        }
        return { saved };
      }),
      client.onRequest('pi/requestPermission', (params: Record<string, unknown>, token: vscode.CancellationToken) =>
        this.askPermission(params, token),
      ),
      client.onRequest('pi/ask', (params: Record<string, unknown>, token: vscode.CancellationToken) =>
        this.askQuestion(params, token),
      ),
    );
  }

  /** pi/ask: a card in the transcript (never a modal); the run waits for its answer. */
  private askQuestion(
    params: Record<string, unknown>,
    token: vscode.CancellationToken,
  ): Promise<AskResult> {
    const requestKey = `q${++this.questionCounter}`;
    return new Promise((resolve) => {
      const sub = token.onCancellationRequested(() => {
        sub.dispose();
        if (this.questionWaiters.delete(requestKey)) {
          this.dispatch({ type: 'questionDone', requestKey, status: 'withdrawn' });
        }
        resolve({ cancelled: true });
      });
      this.questionWaiters.set(requestKey, {
        resolve: (answer) => {
          sub.dispose();
          resolve(answer);
        },
      });
      this.dispatch({ type: 'questionAsk', requestKey, params });
    });
  }

  /** The user's answer to a question card (or its dismissal). */
  answerQuestion(requestKey: string, answers: string[], text?: string, cancelled?: boolean): boolean {
    const w = this.questionWaiters.get(requestKey);
    if (!w) return false;
    this.questionWaiters.delete(requestKey);
    if (cancelled) {
      w.resolve({ cancelled: true });
      this.dispatch({ type: 'questionDone', requestKey, status: 'dismissed' });
      return true;
    }
    const reply: { answers: string[]; text?: string } = { answers };
    if (text) reply.text = text;
    w.resolve(reply);
    const shown = [...answers, ...(text ? [`“${text}”`] : [])].join(', ');
    this.dispatch({ type: 'questionDone', requestKey, status: 'answered', answer: shown });
    return true;
  }

  /** pi/setMode for the current session (a new session first when there is none). */
  async setMode(mode: 'plan' | 'act'): Promise<void> {
    let sessionId = this.vm.sessionId;
    if (!sessionId) sessionId = await this.newSession();
    const r = await this.optional<SetModeResult>('pi/setMode', { sessionId, mode });
    if (!r) {
      void vscode.window.showInformationMessage('pi: this server has no plan mode (pi/setMode); update pi-lsp.');
      return;
    }
    this.dispatch({ type: 'state', state: { sessionId, mode: r.mode } });
  }

  private askPermission(
    params: Record<string, unknown>,
    token: vscode.CancellationToken,
  ): Promise<RequestPermissionResult> {
    if (!this.vm.features.permissions) this.dispatch({ type: 'features', features: { permissions: true } });
    const requestKey = `r${++this.permissionCounter}`;
    const options = Array.isArray(params.options) ? (params.options as { id: string; label: string }[]) : [];
    return new Promise((resolve) => {
      const sub = token.onCancellationRequested(() => {
        sub.dispose();
        if (this.permissionWaiters.delete(requestKey)) {
          this.dispatch({ type: 'permissionDone', requestKey, withdrawn: true });
        }
        const deny = options.find((o) => (o as { kind?: string }).kind === 'deny');
        resolve({ optionId: deny?.id ?? 'deny' });
      });
      this.permissionWaiters.set(requestKey, {
        options,
        resolve: (answer) => {
          sub.dispose();
          resolve(answer);
        },
      });
      this.dispatch({ type: 'permissionAsk', requestKey, params });
    });
  }

  answerPermission(requestKey: string, optionId: string, reason?: string): boolean {
    const w = this.permissionWaiters.get(requestKey);
    if (!w) return false;
    this.permissionWaiters.delete(requestKey);
    const label = w.options.find((o) => o.id === optionId)?.label ?? optionId;
    w.resolve(reason ? { optionId, reason } : { optionId });
    this.dispatch({ type: 'permissionDone', requestKey, answer: reason ? `${label}: ${reason}` : label });
    return true;
  }

  /** "pi: Manage 'always allow' rules": list the workspace's rules (§8) and revoke some. */
  async manageRules(): Promise<void> {
    const r = await this.optional<{ rules: { id: string; tool: string; pattern: string; createdAt?: string }[] }>(
      'pi/permissions',
      { op: 'list' },
    );
    if (!r) {
      void vscode.window.showInformationMessage('pi: this server keeps no permission rules (it has no pi/permissions).');
      return;
    }
    if (r.rules.length === 0) {
      void vscode.window.showInformationMessage('pi: no "always allow" rules in this workspace.');
      return;
    }
    const picked = await vscode.window.showQuickPick(
      r.rules.map((rule) => ({ label: rule.pattern, description: rule.tool, detail: rule.createdAt, id: rule.id })),
      { canPickMany: true, title: 'pi: pick the rules to revoke' },
    );
    for (const p of picked ?? []) await this.request('pi/permissions', { op: 'revoke', id: p.id });
  }

  // ------------------------------------------------------------------ sessions

  /** Make sure the panel shows a session: the last one (reopened on start) or a new one. */
  private async attach(reconnect: boolean): Promise<void> {
    if (this.attaching) return this.attaching;
    this.attaching = (async () => {
      try {
        const sid = this.vm.sessionId ?? this.context.workspaceState.get<string>(LAST_SESSION_KEY);
        // A background server may have a run going (this window was reloaded): show that one.
        const live = reconnect || this.vm.sessionId ? undefined : await this.streamingSession(sid);
        if (reconnect && this.vm.sessionId) {
          await this.reattach(this.vm.sessionId);
        } else if (live) {
          await this.loadSession(live);
        } else if (sid && vscode.workspace.getConfiguration('pi').get<boolean>('reopenLastSession', true)) {
          try {
            await this.loadSession(sid);
          } catch (err) {
            this.log(`could not reopen session ${sid}: ${String(err)}`);
            await this.newSession();
          }
        } else {
          await this.newSession();
        }
        await this.detectFeatures();
      } catch (err) {
        this.log(`attach failed: ${String(err)}`);
      } finally {
        this.attaching = null;
      }
    })();
    return this.attaching;
  }

  /** The session a run is going in (the last one shown, if it is one of them). */
  private async streamingSession(last: string | undefined): Promise<string | undefined> {
    const r = await this.request<SessionsResult>('pi/sessions', {});
    const live = (r.sessions ?? []).filter((x) => x.isStreaming).map((x) => x.sessionId);
    return last && live.includes(last) ? last : live[0];
  }

  /** After a server restart: resume the session, then replay what we missed if it is live. */
  private async reattach(sessionId: string): Promise<void> {
    await this.request('pi/resumeSession', { sessionId });
    const st = await this.request<Record<string, unknown>>('pi/state', { sessionId });
    this.dispatch({ type: 'state', state: st });
    if (st.isStreaming) {
      // The server kept the run going (pi-lsp --tcp): fetch what we missed, nothing twice.
      const afterSeq = this.seqAtDisconnect ?? 0;
      const r = await this.request<{ events: { sessionId: string; seq: number; event: { type: string } }[]; complete: boolean }>(
        'pi/replay',
        { sessionId, afterSeq },
      );
      const events = (r.events ?? []).map((n) => ({ ...n, event: slimEvent(n.event) }));
      this.dispatch({ type: 'replay', sessionId, events, complete: afterSeq > 0 ? r.complete !== false : true });
    }
    this.dispatch({ type: 'notice', level: 'info', topic: 'reconnect', text: 'Reconnected to the pi server.' });
    await this.refresh(sessionId);
  }

  async newSession(): Promise<string> {
    const r = await this.request<SessionIdResult>('pi/newSession', {});
    this.dispatch({ type: 'loadSession', sessionId: r.sessionId, messages: [] });
    await this.context.workspaceState.update(LAST_SESSION_KEY, r.sessionId);
    await this.refresh(r.sessionId);
    return r.sessionId;
  }

  async loadSession(sessionId: string): Promise<void> {
    this.dispatch({ type: 'beginSession', sessionId });
    const r = await this.request<ResumeResult>('pi/resumeSession', { sessionId });
    // A run going on (the background server kept it while this window reloaded): show the
    // transcript before it, then its events from pi/replay — the partial answer included.
    const live = r.liveRun ?? undefined;
    const messages = r.messages ?? [];
    this.dispatch({
      type: 'loadSession',
      sessionId: r.sessionId,
      messages: live ? messages.slice(0, live.messageCount) : messages,
      entryIds: live ? r.entryIds?.slice(0, live.messageCount) : (r.entryIds ?? undefined),
      afterSeq: live?.afterSeq,
    });
    if (live) await this.runEffect({ type: 'replay', sessionId: r.sessionId, afterSeq: live.afterSeq });
    if (r.forkedFrom) {
      // The session is being written by another window or process: we continue in a fork.
      this.dispatch({
        type: 'notice',
        level: 'info',
        topic: 'info',
        text: 'This session is open in another window, so it continues here as a fork (the original is untouched).',
      });
    }
    await this.context.workspaceState.update(LAST_SESSION_KEY, r.sessionId);
    await this.refresh(r.sessionId);
  }

  async listSessions(): Promise<void> {
    const r = await this.request<SessionsResult>('pi/sessions', {});
    this.post({ type: 'sessions', sessions: r.sessions ?? [], currentId: this.vm.sessionId });
  }

  async fork(entryId: string): Promise<void> {
    const sid = this.vm.sessionId;
    if (!sid) return;
    const r = await this.request<SessionIdResult>('pi/forkSession', { sessionId: sid, entryId });
    await this.loadSession(r.sessionId);
  }

  /** Pull pi/state only (usage totals, context meter, model, MCP servers). */
  private async pullState(sessionId: string): Promise<void> {
    try {
      const st = await this.request<Record<string, unknown>>('pi/state', { sessionId });
      if (sessionId === this.vm.sessionId) this.dispatch({ type: 'state', state: st });
      this.pollMcp();
    } catch (err) {
      this.log(`pi/state failed: ${String(err)}`);
    }
  }

  private mcpTimer: ReturnType<typeof setTimeout> | undefined;

  /** The MCP servers (`pi/mcp`, docs/protocol.md §14), for the panel's list. */
  async pullMcp(): Promise<void> {
    try {
      const r = await this.optional<{ servers?: unknown[] }>('pi/mcp', {});
      if (r) this.dispatch({ type: 'state', state: { mcp: r.servers ?? [] } });
    } catch (err) {
      this.log(`pi/mcp failed: ${String(err)}`);
    }
    this.pollMcp();
  }

  /** While a server is starting, look again every 2 s (its state and tools change by itself). */
  private pollMcp(): void {
    if (this.mcpTimer || !this.vm.mcp.some((s) => s.state === 'starting')) return;
    this.mcpTimer = setTimeout(() => {
      this.mcpTimer = undefined;
      void this.pullMcp();
    }, 2000);
  }

  /** The panel's Restart button of one MCP server. */
  async restartMcp(name: string): Promise<void> {
    const params: Record<string, unknown> = { op: 'restart', name };
    if (this.vm.sessionId) params.sessionId = this.vm.sessionId;
    const r = await this.request<{ servers?: unknown[] }>('pi/mcp', params);
    this.dispatch({ type: 'state', state: { mcp: r.servers ?? [] } });
    this.pollMcp();
  }

  /** Pull pi/state, the queue, review and checkpoints (each only if the server has it). */
  async refresh(sessionId: string): Promise<void> {
    void this.pullMcp();
    try {
      const st = await this.request<Record<string, unknown>>('pi/state', { sessionId });
      if (typeof st.thinkingLevel !== 'string' && this.vm.thinkingLevel === null) {
        st.thinkingLevel = vscode.workspace.getConfiguration('pi').get<string>('thinkingLevel') || 'off';
      }
      this.dispatch({ type: 'state', state: st });
    } catch (err) {
      this.log(`pi/state failed: ${String(err)}`);
    }
    try {
      const rv = await this.optional<{ files: ReviewFile[] }>('pi/review', { sessionId }, 'review');
      if (rv) this.dispatch({ type: 'review', files: rv.files ?? [] });
    } catch (err) {
      this.log(`pi/review failed: ${String(err)}`);
    }
    try {
      const cp = await this.optional<{ checkpoints: never[] }>('pi/checkpoints', { sessionId }, 'checkpoints');
      if (cp) this.dispatch({ type: 'checkpoints', checkpoints: cp.checkpoints ?? [] });
      else await this.fetchEntryIds(sessionId);
    } catch (err) {
      this.log(`pi/checkpoints failed: ${String(err)}`);
    }
  }

  /**
   * Without §9.5 the entry ids that "Fork" needs come only with a transcript: fetch it once
   * after a run when messages of this run lack them (bounded, so long sessions stay cheap).
   */
  private async fetchEntryIds(sessionId: string): Promise<void> {
    const users = this.vm.items.filter((i) => i.kind === 'user');
    if (users.length === 0 || users.every((u) => u.kind === 'user' && u.entryId) || this.vm.items.length > 600) return;
    const r = await this.request<{ messages: { role?: string; content?: unknown }[]; entryIds?: (string | null)[] }>(
      'pi/resumeSession',
      { sessionId },
    );
    if (!r.entryIds || this.vm.sessionId !== sessionId) return;
    const list: { entryId: string; text: string }[] = [];
    r.messages.forEach((m, i) => {
      const id = r.entryIds?.[i];
      if (m.role !== 'user' || !id) return;
      const text = Array.isArray(m.content)
        ? (m.content as { type?: string; text?: string }[]).filter((c) => c.type === 'text').map((c) => c.text ?? '').join('')
        : typeof m.content === 'string'
          ? m.content
          : '';
      list.push({ entryId: id, text });
    });
    this.dispatch({ type: 'entryIds', users: list });
  }

  private async detectFeatures(): Promise<void> {
    try {
      const m = await this.optional<ModelsResult>('pi/models', this.vm.sessionId ? { sessionId: this.vm.sessionId } : {}, 'models');
      if (m) this.post({ type: 'models', models: m.models ?? [], current: m.current ?? null });
    } catch (err) {
      this.log(`pi/models failed: ${String(err)}`);
    }
    const sid = this.vm.sessionId;
    if (sid && !this.missing.has('pi/queue')) {
      // Probe §7 without changing anything: an op the server refuses (InvalidParams) still
      // proves pi/queue exists; MethodNotFound hides the queue controls. deliverAs
      // "interrupt" is part of the same section.
      try {
        await this.request('pi/queue', { sessionId: sid, op: 'probe' });
        this.dispatch({ type: 'features', features: { queue: true, interrupt: true } });
      } catch (err) {
        if ((err as { code?: number })?.code === METHOD_NOT_FOUND) this.missing.add('pi/queue');
        else this.dispatch({ type: 'features', features: { queue: true, interrupt: true } });
      }
    }
  }

  // ------------------------------------------------------------------ input

  enterAction(): DeliverAs {
    const v = vscode.workspace.getConfiguration('pi').get<string>('input.enterAction');
    return v === 'followUp' || v === 'interrupt' ? v : 'steer';
  }

  async prompt(
    text: string,
    deliverAs?: DeliverAs,
    attachments?: unknown[],
    context?: unknown,
    images?: { data: string; mimeType: string }[],
  ): Promise<{ sessionId: string; delivered: string }> {
    if (this.attaching) await this.attaching;
    let sessionId = this.vm.sessionId;
    if (!sessionId) sessionId = await this.newSession();
    if (deliverAs === 'interrupt' && this.vm.isStreaming && !this.vm.features.interrupt) {
      // A server without §7 interrupt: stop the run, then send as a new prompt.
      await this.abort();
      await this.whenIdle(5000);
    }
    const params: Record<string, unknown> = { text, sessionId };
    const streaming = this.vm.isStreaming;
    if (streaming) params.deliverAs = deliverAs ?? this.enterAction();
    else if (deliverAs === 'followUp' || deliverAs === 'steer') params.deliverAs = deliverAs;
    if (attachments && attachments.length > 0) params.attachments = attachments;
    if (context) params.context = context;
    if (images && images.length > 0) params.images = images;
    const waiting = this.vm.questions[0];
    if (waiting && this.questionWaiters.has(waiting.requestKey) && !(images && images.length > 0)) {
      // A message typed while the agent's question waits is its answer.
      const label = waiting.options.find((o) => o.label.toLowerCase() === text.trim().toLowerCase())?.label;
      this.answerQuestion(waiting.requestKey, label ? [label] : [], label ? undefined : text);
      return { sessionId, delivered: 'answer' };
    }
    if (params.deliverAs === 'steer' || params.deliverAs === 'interrupt') {
      // Steering while a tool waits for permission answers it: the call is denied and the
      // model reads the new instruction as the reason (as Copilot cancels the pending call).
      for (const p of this.vm.permissions) {
        const w = this.permissionWaiters.get(p.requestKey);
        const deny = w?.options.find((o) => (o as { kind?: string }).kind === 'deny');
        if (deny) this.answerPermission(p.requestKey, deny.id, `The user sent a new instruction instead: ${text}`);
      }
    }
    let r: { sessionId: string; delivered: string };
    try {
      r = await this.request('pi/prompt', params);
    } catch (err) {
      if (params.attachments && /attachments/.test(String((err as Error).message))) {
        // A server without §10 attachments: fall back to the v1 `context` of the first file.
        delete params.attachments;
        const first = attachments?.find((a) => (a as { uri?: string }).uri) as { uri: string; range?: unknown } | undefined;
        if (first && !params.context) params.context = first;
        r = await this.request('pi/prompt', params);
      } else {
        throw err;
      }
    }
    if (params.deliverAs === 'interrupt' && r.delivered !== 'interrupt') {
      // no §7 interrupt on this server
    } else if (params.deliverAs === 'interrupt' && !this.vm.features.interrupt) {
      this.dispatch({ type: 'features', features: { interrupt: true } });
    }
    if ((r.delivered === 'steer' || r.delivered === 'followUp') && !this.vm.features.queue) {
      this.dispatch({ type: 'localQueue', text, deliverAs: r.delivered });
    }
    if (this.vm.sessionId !== r.sessionId) await this.loadSession(r.sessionId);
    return r;
  }

  /** Resolves once the run is over (or after `ms`, whichever comes first). */
  private whenIdle(ms: number): Promise<void> {
    if (!this.vm.isStreaming) return Promise.resolve();
    return new Promise((resolve) => {
      const timer = setTimeout(done, ms);
      const sub = this.onDidChange((vm) => {
        if (!vm.isStreaming) done();
      });
      function done() {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
  }

  async abort(): Promise<{ aborted: boolean }> {
    const sessionId = this.vm.sessionId;
    if (!sessionId) return { aborted: false };
    return this.request('pi/abort', { sessionId });
  }

  async queueOp(op: string, id?: string, text?: string): Promise<unknown> {
    const sessionId = this.vm.sessionId;
    if (!sessionId) return undefined;
    if (id?.startsWith('local:')) throw new Error('This server cannot edit its queue (no pi/queue).');
    const params: Record<string, unknown> = { sessionId, op };
    if (id !== undefined) params.id = id;
    if (text !== undefined) params.text = text;
    const r = await this.optional<QueueResult>('pi/queue', params, 'queue');
    if (r) this.dispatch({ type: 'queue', queue: { steering: r.steering ?? [], followUp: r.followUp ?? [] } });
    return r;
  }

  // ------------------------------------------------------------------ review, checkpoints

  async reviewDecision(decisions: { hunkId: string; decision: 'keep' | 'undo'; reason?: string }[]): Promise<unknown> {
    const sessionId = this.vm.sessionId;
    if (!sessionId) return undefined;
    const r = await this.request<{ applied: string[]; conflicts: { hunkId: string; message: string }[] }>(
      'pi/reviewDecision',
      { sessionId, decisions },
    );
    for (const c of r.conflicts ?? []) {
      this.dispatch({ type: 'notice', level: 'warning', topic: 'info', text: `Could not undo a change: ${c.message}` });
    }
    // A review_update event follows; ask anyway so a missed event cannot leave stale lenses.
    const rv = await this.optional<{ files: ReviewFile[] }>('pi/review', { sessionId }, 'review');
    if (rv) this.dispatch({ type: 'review', files: rv.files ?? [] });
    return r;
  }

  async restore(entryId: string, mode: 'code' | 'conversation' | 'both'): Promise<unknown> {
    const sessionId = this.vm.sessionId;
    if (!sessionId) return undefined;
    const r = await this.request<{
      restoreId?: string;
      reverted?: string[];
      conflicts?: { uri: string; message: string }[];
      sessionId?: string;
      text?: string;
      prompt?: string;
      note?: string;
    }>('pi/restore', { sessionId, entryId, mode });
    const reverted = r.reverted?.length ?? 0;
    const conflicts = r.conflicts?.length ?? 0;
    const parts: string[] = [];
    if (mode !== 'conversation') parts.push(`restored code: ${reverted} file${reverted === 1 ? '' : 's'} reverted`);
    if (conflicts) parts.push(`${conflicts} conflict${conflicts === 1 ? '' : 's'} left as they are`);
    if (mode !== 'code') parts.push('conversation restored to before that message');
    if (r.note) parts.push(r.note);
    if (r.sessionId && r.sessionId !== sessionId) await this.loadSession(r.sessionId);
    this.dispatch({
      type: 'notice',
      level: conflicts ? 'warning' : 'info',
      topic: 'restore',
      text: `${parts.join('; ')}.`,
      restoreId: r.restoreId,
    });
    const text = r.text ?? r.prompt;
    if (mode !== 'code' && typeof text === 'string') this.post({ type: 'setInput', text });
    return r;
  }

  /** "Revert this change" on an edit/write card (docs/protocol.md §9.5: pi/revertToolCall); undoable from its notice. */
  async revertToolCall(toolCallId: string): Promise<unknown> {
    const sessionId = this.vm.sessionId;
    if (!sessionId) return undefined;
    const r = await this.request<{ restoreId?: string; reverted?: string[]; conflicts?: { uri: string; message: string }[] }>(
      'pi/revertToolCall',
      { sessionId, toolCallId },
    );
    const reverted = r.reverted?.length ?? 0;
    const conflicts = r.conflicts ?? [];
    const parts = [`reverted this change: ${reverted} file${reverted === 1 ? '' : 's'}`];
    if (conflicts.length) parts.push(conflicts.map((c) => c.message).join('; '));
    this.dispatch({
      type: 'notice',
      level: conflicts.length ? 'warning' : 'info',
      topic: 'restore',
      text: `${parts.join('; ')}.`,
      restoreId: reverted ? r.restoreId : undefined,
    });
    return r;
  }

  async undoRestore(restoreId: string): Promise<unknown> {
    const sessionId = this.vm.sessionId;
    if (!sessionId) return undefined;
    const r = await this.request('pi/undoRestore', { sessionId, restoreId });
    this.dispatch({ type: 'notice', level: 'info', topic: 'info', text: 'Restore undone.' });
    return r;
  }

  // ------------------------------------------------------------------ models

  async listModels(): Promise<void> {
    const m = await this.optional<ModelsResult>('pi/models', this.vm.sessionId ? { sessionId: this.vm.sessionId } : {}, 'models');
    if (m) this.post({ type: 'models', models: m.models ?? [], current: m.current ?? null });
  }

  async setModel(model: string, provider?: string, thinkingLevel?: string): Promise<void> {
    const sessionId = this.vm.sessionId;
    if (!sessionId) return;
    const params: Record<string, unknown> = { sessionId, model };
    if (provider) params.provider = provider;
    if (thinkingLevel) params.thinkingLevel = thinkingLevel;
    await this.optional('pi/setModel', params, 'models');
    await this.refresh(sessionId);
  }

  async setThinking(level: string): Promise<void> {
    const m = this.vm.model;
    if (m && this.vm.features.models) {
      await this.setModel(m.id, m.provider, level);
      this.dispatch({ type: 'state', state: { thinkingLevel: level } });
    } else {
      // No per-session switch on this server: the setting, where it is set now.
      await this.updateSetting('thinkingLevel', level);
      this.dispatch({ type: 'state', state: { thinkingLevel: level } });
    }
  }

  // ------------------------------------------------------------------ diagnostics (§9.4)

  private noteTouched(ev: Record<string, unknown>): void {
    const args = (ev.args ?? {}) as Record<string, unknown>;
    if (this.touchedFiles.size > 2000) this.touchedFiles.clear();
    const p = typeof args.path === 'string' ? args.path : undefined;
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (p && root) {
      const uri = p.startsWith('/') ? vscode.Uri.file(p) : vscode.Uri.joinPath(root, p);
      this.touchedFiles.add(uri.toString());
    }
  }

  private forwardDiagnostics(uris: readonly vscode.Uri[]): void {
    const c = this.client;
    if (!c || !c.isRunning()) return;
    for (const u of uris) {
      const key = u.toString();
      if (!this.touchedFiles.has(key)) continue;
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
      const diagnostics = vscode.languages.getDiagnostics(u).map((d) => c.code2ProtocolConverter.asDiagnostic(d));
      void c.sendNotification('pi/diagnostics', { uri: key, version: doc?.version, diagnostics });
    }
  }

  /** Files the agent touched in this window (diagnostics are forwarded for them). */
  touched(): ReadonlySet<string> {
    return this.touchedFiles;
  }

  // ------------------------------------------------------------------ webview messages

  /** Validate and handle one message from a webview (or from the test API). */
  async handleWebviewMessage(raw: unknown): Promise<unknown> {
    const msg: WebviewMessage = parseWebviewMessage(raw);
    switch (msg.type) {
      case 'ready': {
        this.post({ type: 'snapshot', vm: this.vm, settings: await this.panelSettings() });
        const inserts = this.pendingInsert;
        this.pendingInsert = [];
        for (const m of inserts) this.post(m);
        return undefined;
      }
      case 'send':
        return this.prompt(msg.text, msg.deliverAs, msg.attachments, undefined, msg.images);
      case 'stop':
        return this.abort();
      case 'newSession':
        return this.newSession();
      case 'listSessions':
        return this.listSessions();
      case 'resumeSession':
        return this.loadSession(msg.sessionId);
      case 'fork':
        return this.fork(msg.entryId);
      case 'queue':
        return this.queueOp(msg.op, msg.id, msg.text);
      case 'permission':
        return this.answerPermission(msg.requestKey, msg.optionId, msg.reason);
      case 'answer':
        return this.answerQuestion(msg.requestKey, msg.answers, msg.text, msg.cancelled);
      case 'setMode':
        return this.setMode(msg.mode);
      case 'review':
        return this.reviewDecision(msg.decisions);
      case 'openFile':
        return this.openFile(msg.uri, msg.line);
      case 'openHunk':
        return this.openHunk(msg.uri, msg.hunkId);
      case 'restore':
        return this.restore(msg.entryId, msg.mode);
      case 'undoRestore':
        return this.undoRestore(msg.restoreId);
      case 'revertToolCall':
        return this.revertToolCall(msg.toolCallId);
      case 'listModels':
        return this.listModels();
      case 'setModel':
        return this.setModel(msg.model, msg.provider);
      case 'setThinking':
        return this.setThinking(msg.level);
      case 'setEdits':
        await this.updateSetting('edits', msg.mode);
        this.postSettings();
        return undefined;
      case 'completeFiles':
        return this.completeFiles(msg.query, msg.requestId);
      case 'compact': {
        const sid = this.vm.sessionId;
        return sid ? this.request('pi/compact', { sessionId: sid }) : undefined;
      }
      case 'setApiKey':
        return this.setApiKey();
      case 'openSettings':
        return vscode.commands.executeCommand('workbench.action.openSettings', '@ext:pi-lsp.pi-lsp');
      case 'retryServer':
        return this.restart();
      case 'mcpRestart':
        return this.restartMcp(msg.name);
      case 'copy':
        return vscode.env.clipboard.writeText(msg.text);
    }
  }

  async panelSettings(): Promise<{ enterAction: DeliverAs; hasApiKey: boolean; edits: 'apply' | 'confirm' }> {
    const edits = vscode.workspace.getConfiguration('pi').get<string>('edits') === 'confirm' ? 'confirm' : 'apply';
    return { enterAction: this.enterAction(), hasApiKey: await this.hasApiKey(), edits };
  }

  /** Change a `pi.*` setting where it is set now (the workspace's value if it has one, else the user's). */
  async updateSetting(key: string, value: unknown): Promise<void> {
    const cfg = vscode.workspace.getConfiguration('pi');
    const at = cfg.inspect(key);
    const target =
      at?.workspaceFolderValue !== undefined
        ? vscode.ConfigurationTarget.WorkspaceFolder
        : at?.workspaceValue !== undefined
          ? vscode.ConfigurationTarget.Workspace
          : vscode.ConfigurationTarget.Global;
    await cfg.update(key, value, target);
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
    const q = query.replace(/[[\]{}*?]/g, '');
    const glob = q.includes('/') ? `${q}*` : `**/*${q}*`;
    const found = await vscode.workspace.findFiles(glob, '**/{node_modules,.git,.venv,dist,build}/**', 40);
    const rel = found.map((u) => vscode.workspace.asRelativePath(u, false)).sort((a, b) => a.length - b.length);
    this.post({ type: 'files', requestId, files: rel.slice(0, 20) });
  }

  dispose(): void {
    for (const w of this.permissionWaiters.values()) w.resolve({ optionId: 'deny' });
    this.permissionWaiters.clear();
    for (const w of this.questionWaiters.values()) w.resolve({ cancelled: true });
    this.questionWaiters.clear();
    void this.stopClient();
    for (const d of this.disposables) d.dispose();
  }
}

export function secretName(provider: string): string {
  return `pi.apiKey.${provider}`;
}
