// Starting pi-lsp with vscode-languageclient: discovery, the transport (a child over stdio, or
// the workspace's background server over its socket: background.ts), the process environment
// (stored API key), the settings middleware, and the `pi/*` handlers the client declares.

import * as fs from 'fs';
import type * as net from 'net';
import * as vscode from 'vscode';
import {
  CloseAction,
  DidChangeConfigurationNotification,
  ErrorAction,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
  State,
  TransportKind,
} from 'vscode-languageclient/node';
import { defaultStateDir, ensureConnected, stopServer, workspaceRoot } from './background';
import { discover, type Discovery } from './discovery';
import { type ServerMode, serverModeFor, serverSettings } from './settings';

export type { ServerMode };

export const CLIENT_ID = 'pi';

/** The `pi/*` features this client handles (initializationOptions.pi.clientCapabilities). */
export const CLIENT_CAPABILITIES = {
  events: true,
  saveDocuments: true,
  requestPermission: true,
  /** The agent's questions come as pi/ask and are answered in a card in the panel. */
  ask: true,
  diagnostics: true,
  /** turn_end / agent_end name messages instead of repeating them; message_end leaves out
   * the text the deltas already brought (`streamed: true` blocks). */
  compactEvents: true,
  /** The agent's `lsp` tool asks VS Code's language servers (pi/lspQuery, src/lsp/query.ts). */
  lspQuery: true,
  maxUpdatesPerSecond: 30,
  /** task children: their events come under their own session ids (parentSessionId). */
  subagents: true,
};

export function isExecutable(file: string): boolean {
  try {
    const st = fs.statSync(file);
    if (!st.isFile()) return false;
    if (process.platform === 'win32') return true;
    fs.accessSync(file, fs.constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The part of the Python extension's API we read (it may be missing or differ by version). */
interface PythonExtensionApi {
  environments?: { getActiveEnvironmentPath?(folder?: vscode.Uri): { path?: unknown } | undefined };
}

/** The Python extension's selected interpreter for the first workspace folder, if any. */
export async function pythonInterpreter(): Promise<string | undefined> {
  const ext = vscode.extensions.getExtension<PythonExtensionApi | undefined>('ms-python.python');
  if (!ext) return undefined;
  try {
    const api = ext.isActive ? ext.exports : await ext.activate();
    const folder = vscode.workspace.workspaceFolders?.[0]?.uri;
    const envPath = api?.environments?.getActiveEnvironmentPath?.(folder);
    const p = envPath?.path;
    if (typeof p === 'string' && p && isExecutable(p)) return p;
    if (typeof p === 'string' && p && isExecutable(`${p}/bin/python`)) return `${p}/bin/python`;
  } catch {
    // The Python extension's API changed or failed: fall back to .venv and PATH.
  }
  return undefined;
}

export async function discoverServer(): Promise<Discovery> {
  const cfg = vscode.workspace.getConfiguration('pi');
  return discover({
    setting: cfg.get<string>('server.command') ?? '',
    settingArgs: cfg.get<string[]>('server.args') ?? [],
    pythonInterpreter: await pythonInterpreter(),
    workspaceFolders: (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath),
    pathEnv: process.env.PATH ?? '',
    platform: process.platform,
    isExecutable,
  });
}

export function currentServerSettings(): Record<string, unknown> {
  const cfg = vscode.workspace.getConfiguration('pi');
  return serverSettings((k) => cfg.get(k));
}

/** `pi.server.mode`, where it can apply (settings.ts: background needs sockets and a folder). */
export function serverMode(): ServerMode {
  const cfg = vscode.workspace.getConfiguration('pi');
  return serverModeFor(cfg.get('server.mode'), process.platform, (vscode.workspace.workspaceFolders ?? []).length > 0);
}

/** How the client reaches the server: a child over stdio, or a connection to the background
 * server (opened anew by each (re)start of the client: a server that died is started again). */
export type Transport = { kind: 'stdio' } | { kind: 'background'; connect(): Promise<net.Socket> };

function backgroundPlace(): { dir: string; root: string; cwd: string } | undefined {
  const folders = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  const root = workspaceRoot(folders);
  return root === undefined ? undefined : { dir: defaultStateDir(), root, cwd: folders[0] };
}

/** Connections to the workspace's background server, started on first need with `env`. */
export function backgroundTransport(
  found: Extract<Discovery, { found: true }>,
  env: Record<string, string>,
  log: (line: string) => void,
): Transport {
  return {
    kind: 'background',
    connect: async () => {
      const place = backgroundPlace();
      if (!place) throw new Error('pi: a background server needs a workspace folder');
      const idle = vscode.workspace.getConfiguration('pi').get<number>('server.idleTimeout') ?? 600;
      const r = await ensureConnected({
        command: found.command,
        args: found.args,
        ...place,
        idleTimeout: idle > 0 ? idle : 600,
        env: { ...process.env, ...env },
      });
      log(`${r.started ? 'started' : 'found'} the background server (pid ${r.record.pid}, socket ${r.record.socket})`);
      return r.socket;
    },
  };
}

/** End the workspace's background server (its runs are aborted and saved): a real restart. */
export async function stopBackground(): Promise<boolean> {
  const place = backgroundPlace();
  return place ? stopServer(place.dir, place.root) : false;
}

export interface ClientHooks {
  output: vscode.LogOutputChannel;
  env: Record<string, string>;
  onStateChange(running: boolean, stopped: boolean): void;
  /** False once the controller has replaced or dropped this client: it must not restart. */
  isCurrent?(): boolean;
}

/** The library's client, except that a start that fails is not announced by the library's own
 * forced error toast: the caller (`controller/lifecycle.ts`) falls back — a background server
 * another editor holds → this window's own over stdio, the bundled server → the next source —
 * or shows its own error with the server's command. A toast for a failure the extension
 * recovers from covered the panel's input (seen in the UI tier), and one that the extension
 * also reports came twice. What the library logs still goes to the output channel. */
export class PiClient extends LanguageClient {
  private starting = false;

  override async start(): Promise<void> {
    this.starting = true;
    try {
      await super.start();
    } finally {
      this.starting = false;
    }
  }

  override error(message: string, data?: unknown, showNotification: boolean | 'force' = true): void {
    super.error(message, data, this.starting && showNotification === 'force' ? false : showNotification);
  }
}

export function createClient(
  found: Extract<Discovery, { found: true }>,
  hooks: ClientHooks,
  transport: Transport = { kind: 'stdio' },
): LanguageClient {
  const serverOptions: ServerOptions =
    transport.kind === 'background'
      ? async () => {
          const socket = await transport.connect();
          return { reader: socket, writer: socket };
        }
      : {
          command: found.command,
          args: found.args,
          transport: TransportKind.stdio, // vscode-languageclient appends --stdio
          options: { env: { ...process.env, ...hooks.env } },
        };
  let restarts = 0;
  let clientRef: LanguageClient | undefined;
  const clientOptions: LanguageClientOptions = {
    documentSelector: [{ scheme: 'file' }, { scheme: 'untitled' }],
    outputChannel: hooks.output,
    revealOutputChannelOn: 4 /* RevealOutputChannelOn.Never */,
    initializationOptions: () => ({
      pi: { ...currentServerSettings(), clientCapabilities: CLIENT_CAPABILITIES },
    }),
    synchronize: { configurationSection: 'pi' },
    middleware: {
      // The server's "Ask pi to fix this" is replaced by our "Fix with pi", which goes
      // through the panel (and attaches the diagnostics); "Explain this" stays, and so do a
      // review finding's own actions (Fix with pi: <title>, Explain, Dismiss; docs/review.md).
      provideCodeActions: async (document, range, context, token, next) => {
        const actions = await next(document, range, context, token);
        return actions?.filter(
          (a) => !(a instanceof vscode.CodeAction && a.kind?.value === 'quickfix' && /^ask pi to fix/i.test(a.title)),
        );
      },
      window: {
        // Follow-along (pi.followEdits) must never disturb the user: an editor already showing
        // the file is scrolled (its cursor untouched); otherwise the file opens beside, as a
        // preview, without focus — never in the editor the user is typing in.
        showDocument: async (params, token, next) => {
          if (params.external || params.takeFocus) return next(params, token);
          const uri = vscode.Uri.parse(params.uri);
          const sel = params.selection;
          const range = sel ? new vscode.Range(sel.start.line, sel.start.character, sel.end.line, sel.end.character) : undefined;
          const shown = vscode.window.visibleTextEditors.find((e) => e.document.uri.toString() === uri.toString());
          try {
            if (shown) {
              if (range) shown.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
            } else {
              const ed = await vscode.window.showTextDocument(uri, {
                preserveFocus: true,
                preview: true,
                viewColumn: vscode.ViewColumn.Beside,
              });
              if (range) ed.revealRange(range, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
            }
            return { success: true };
          } catch {
            return { success: false };
          }
        },
      },
      workspace: {
        // Pushed settings are the mapped ones too (never the raw `pi.*` with extension-only keys).
        didChangeConfiguration: async (sections, next) => {
          if (sections && sections.length === 1 && sections[0] === 'pi' && clientRef) {
            await clientRef.sendNotification(DidChangeConfigurationNotification.type, {
              settings: { pi: currentServerSettings() },
            });
            return;
          }
          await next(sections);
        },
        // Answer `workspace/configuration` for section `pi` with the server's names only.
        configuration: (params, token, next) => {
          const items = params.items;
          if (items.every((i) => i.section === 'pi')) return items.map(() => currentServerSettings());
          return next(params, token);
        },
      },
    },
    errorHandler: {
      error: () => ({ action: ErrorAction.Continue }),
      closed: () => {
        if (hooks.isCurrent && !hooks.isCurrent()) return { action: CloseAction.DoNotRestart, handled: true };
        restarts += 1;
        if (restarts <= 4) return { action: CloseAction.Restart, message: 'pi: the server stopped; restarting it.' };
        return { action: CloseAction.DoNotRestart, message: 'pi: the server stopped 5 times; run "pi: Restart server".' };
      },
    },
  };
  const client = new PiClient(CLIENT_ID, 'pi', serverOptions, clientOptions);
  clientRef = client;
  client.onDidChangeState((e) => {
    hooks.onStateChange(e.newState === State.Running, e.newState === State.Stopped);
  });
  return client;
}
