// Server lifecycle: find the server, start the language client, read the features it declares
// in `initialize`, follow its state (stopped, restarted by the client), restart on request, and
// the API key that travels to it in its process environment.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { Features } from '../model/types';
import { type Connection, handleServerMessages, type ServerHandlers } from '../protocol/client';
import { readDeclaration, ServerFeatures } from '../protocol/features';
import { backgroundTransport, createClient, serverMode, type ServerMode, stopBackground, type Transport } from '../server';
import { apiKeyVariable } from '../settings';
import type { Host } from './host';
import { extensionVersion, installServer, openSetupDocs, resolveFromEditor } from '../install/host';
import type { Resolution } from '../install/sources';
import { protocolWarning } from '../install/version';

export function secretName(provider: string): string {
  return `pi.apiKey.${provider}`;
}

/** The panel's controls, from what the server declared. */
export function panelFeatures(f: ServerFeatures): Features {
  return {
    queue: f.has('queue'),
    interrupt: f.has('interrupt'),
    review: f.has('review'),
    checkpoints: f.has('checkpoints'),
    models: f.has('models'),
    permissions: f.has('permissionRules'),
  };
}

/** The typed client's view of a language client (its overloads, narrowed to method names). */
export function connectionOf(client: LanguageClient): Connection {
  return {
    sendRequest: <R>(method: string, params: unknown) => client.sendRequest<R>(method, params),
    sendNotification: (method, params) => client.sendNotification(method, params),
    onNotification: (method, handler) => client.onNotification(method, handler),
    onRequest: (method, handler) => client.onRequest(method, handler),
    isRunning: () => client.isRunning(),
  };
}

export interface LifecycleHooks {
  /** The handlers of the server → client messages, installed on every new client. */
  handlers: ServerHandlers;
  /** The server runs (`reconnect`: again, after the client restarted it): show a session. */
  attach(reconnect: boolean): Promise<void>;
  /** The connection dropped (what the panel knew is kept, to continue after a reconnect). */
  disconnected(): void;
}

export class ServerLifecycle {
  client: LanguageClient | undefined;
  ready: Promise<void> = Promise.resolve();
  features: ServerFeatures = ServerFeatures.NONE;
  private wasRunning = false;
  private restarting: Promise<void> = Promise.resolve();
  private clientDisposables: { dispose(): unknown }[] = [];
  /** The last "not found": the Python a one-click install would use. */
  private missing: Extract<Resolution, { found: false }> | undefined;

  constructor(
    private readonly host: Host,
    private readonly output: vscode.LogOutputChannel,
    private readonly hooks: LifecycleHooks,
  ) {
    host.context.subscriptions.push(vscode.commands.registerCommand('pi.installServer', () => this.install()));
  }

  /** "pi: Install server": the managed environment (src/install/managed.ts), then a restart.
   * A second click while one install runs waits for it (never two pips in one venv). */
  install(): Promise<boolean> {
    this.installing ??= this.doInstall().finally(() => (this.installing = undefined));
    return this.installing;
  }

  private installing: Promise<boolean> | undefined;

  private async doInstall(): Promise<boolean> {
    const log = (l: string) => this.host.log(l);
    const python = this.missing?.python ?? (await this.findPython());
    if (!python) {
      const message = this.missing?.message ?? 'pi: no Python 3.11 or newer was found to install pi-lsp with.';
      void vscode.window.showErrorMessage(message, 'Open docs').then((a) => a && openSetupDocs(this.host.context));
      return false;
    }
    const r = await installServer(this.host.context, python, log);
    if (!r.ok) {
      log(r.message);
      void vscode.window.showErrorMessage(r.message, 'Show log').then((a) => a && this.output.show(true));
      return false;
    }
    await this.restart();
    return true;
  }

  private async findPython(): Promise<string | undefined> {
    const r = await resolveFromEditor(this.host.context, () => undefined, true);
    return r.found ? undefined : r.python;
  }

  /** Discover the server and start the client; `ready` settles when that is over. */
  start(): Promise<void> {
    this.ready = this.doStart();
    return this.ready;
  }

  /** Stop and start again (serialised: two quick restarts never race). */
  restart(): Promise<void> {
    this.restarting = this.restarting.then(async () => {
      await this.stopClient();
      // A background server outlives its connections: a restart ends it (new command, args
      // or key), aborting and saving what runs there.
      if (serverMode() === 'background' && (await stopBackground())) this.host.log('stopped the background server');
      this.wasRunning = false;
      this.setFeatures(ServerFeatures.NONE); // another server may have other features
      await this.start();
    });
    return this.restarting;
  }

  async stopClient(): Promise<void> {
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

  private setFeatures(f: ServerFeatures): void {
    this.features = f;
    this.host.dispatch({ type: 'features', features: panelFeatures(f) });
  }

  /** Read `capabilities.experimental.pi` of the client's `initialize` answer. */
  private readFeatures(client: LanguageClient): void {
    const f = new ServerFeatures(readDeclaration(client.initializeResult?.capabilities.experimental));
    const info = client.initializeResult?.serverInfo;
    this.host.log(`server: ${info?.name ?? '?'} ${info?.version ?? '?'}; ${f.describe()}`);
    const warning = protocolWarning(f.declaration?.protocolVersion ?? null, info?.version, extensionVersion(this.host.context));
    if (warning) {
      this.host.log(warning);
      void vscode.window.showWarningMessage(warning);
    }
    this.setFeatures(f);
  }

  private async doStart(mode: ServerMode = serverMode(), skipBundled = false): Promise<void> {
    const dispatch = this.host.dispatch.bind(this.host);
    dispatch({ type: 'server', server: { status: 'starting' } });
    let found: Resolution;
    try {
      found = await resolveFromEditor(this.host.context, (l) => this.host.log(l), skipBundled);
    } catch (err) {
      found = { found: false, message: `pi: server discovery failed: ${String(err)}`, installCommand: 'python3 -m pip install pi-lsp' };
    }
    if (!found.found) {
      this.missing = found;
      dispatch({ type: 'server', server: { status: 'missing', message: found.message } });
      this.host.log(found.message);
      void this.showMissing(found);
      return;
    }
    this.missing = undefined;
    const command = [found.command, ...found.args].join(' ');
    this.host.log(`${mode === 'background' ? 'connecting to the background' : 'starting'} ${command} --${mode === 'background' ? 'socket' : 'stdio'} (found via ${found.source})`);
    const env = await this.serverEnv();
    const transport: Transport = mode === 'background' ? backgroundTransport(found, env, (l) => this.host.log(l)) : { kind: 'stdio' };
    const client = createClient(found, {
      output: this.output,
      env,
      // Only the current client's life counts (a client being replaced by restart() is not news).
      onStateChange: (running, stopped) => {
        if (this.client === client) this.onClientState(client, running, stopped, command, found.source);
      },
      isCurrent: () => this.client === client,
    }, transport);
    this.client = client;
    this.clientDisposables.push(...handleServerMessages(connectionOf(client), this.hooks.handlers));
    try {
      await client.start();
    } catch (err) {
      if (mode === 'background') {
        // No background server to be had (another editor is attached to it, no socket
        // support, …): this window gets its own server over stdio.
        this.host.log(`the background server is not usable (${err instanceof Error ? err.message : String(err)}); using stdio`);
        await this.stopClient();
        return this.doStart('stdio', skipBundled);
      }
      if (found.source === 'bundled') {
        // e.g. a compiled wheel this machine cannot load after all: the next source
        this.host.log(`the bundled server failed to start (${err instanceof Error ? err.message : String(err)}); trying the next source`);
        await this.stopClient();
        return this.doStart(mode, true);
      }
      const message = `pi: the server ${command} failed to start: ${err instanceof Error ? err.message : String(err)}`;
      dispatch({ type: 'server', server: { status: 'error', message, command, source: found.source } });
      this.host.log(message);
      void vscode.window.showErrorMessage(message, 'Show log').then((a) => a && this.output.show(true));
      return;
    }
    this.readFeatures(client);
    dispatch({ type: 'server', server: { status: 'running', command, source: found.source } });
    this.wasRunning = true;
    await this.hooks.attach(false);
  }

  private onClientState(client: LanguageClient, running: boolean, stopped: boolean, command: string, source: string): void {
    const status = this.host.state().server.status;
    if (running && this.wasRunning && status !== 'running') {
      // The client restarted the server: re-attach to the session without losing the view.
      this.readFeatures(client);
      this.host.dispatch({ type: 'server', server: { status: 'running', command, source } });
      void this.hooks.attach(true);
    } else if (!running && status === 'running') {
      this.hooks.disconnected();
      this.host.dispatch(
        { type: 'server', server: { status: stopped ? 'stopped' : 'starting', command, source } },
        { type: 'disconnected', reason: 'The pi server stopped; what was running was interrupted.' },
      );
    }
  }

  private async showMissing(missing: Extract<Resolution, { found: false }>): Promise<void> {
    const first = missing.python ? 'Install server' : 'Open docs';
    const choice = await vscode.window.showErrorMessage(missing.message, first, 'Retry', 'Copy install command', 'Open settings');
    if (choice === 'Install server') await this.install();
    else if (choice === 'Open docs') await openSetupDocs(this.host.context);
    else if (choice === 'Retry') await this.restart();
    else if (choice === 'Copy install command') await vscode.env.clipboard.writeText(missing.installCommand);
    else if (choice === 'Open settings') await vscode.commands.executeCommand('workbench.action.openSettings', 'pi.server');
  }

  /** The stored API key goes to the server only through its process environment. */
  private async serverEnv(): Promise<Record<string, string>> {
    const cfg = vscode.workspace.getConfiguration('pi');
    const provider = cfg.get<string>('provider') || undefined;
    const variable = apiKeyVariable(provider, cfg.get<string>('apiKeyEnv') || undefined);
    if (!provider || !variable) return {};
    const key = await this.host.context.secrets.get(secretName(provider));
    return key ? { [variable]: key } : {};
  }

  /** "pi: Set API key": store (or remove) the key of the configured provider, then restart. */
  async setApiKey(): Promise<boolean> {
    const cfg = vscode.workspace.getConfiguration('pi');
    const providers = ['anthropic', 'openai', 'google', 'openrouter', 'groq', 'openai-compatible', 'ollama'];
    const current = cfg.get<string>('provider') || undefined;
    const provider =
      current && providers.includes(current)
        ? current
        : await vscode.window.showQuickPick(providers, { title: 'pi: which provider is the key for?' });
    if (!provider) return false;
    const key = await vscode.window.showInputBox({
      title: `pi: API key for ${provider}`,
      prompt: 'Stored in VS Code\'s secret storage and handed to the server in its environment; empty removes it.',
      password: true,
      ignoreFocusOut: true,
    });
    if (key === undefined) return false;
    const secrets = this.host.context.secrets;
    if (key.trim()) await secrets.store(secretName(provider), key.trim());
    else await secrets.delete(secretName(provider));
    if (!current) await cfg.update('provider', provider, vscode.ConfigurationTarget.Global);
    return true;
  }

  async hasApiKey(): Promise<boolean> {
    const provider = vscode.workspace.getConfiguration('pi').get<string>('provider');
    return provider ? !!(await this.host.context.secrets.get(secretName(provider))) : false;
  }
}
