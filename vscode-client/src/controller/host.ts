// What the controller's parts share: the view model (read, dispatch), the panels (post), the
// running server's typed client and declared features, the log. `Controller` implements it
// and hands it to each part; the parts never reach into each other's state.

import * as vscode from 'vscode';
import type { Action } from '../model/reducer';
import type { ViewModel } from '../model/types';
import type { PiClient } from '../protocol/client';
import type { ServerFeatures } from '../protocol/features';
import type { HostMessage } from '../protocol/messages';

export interface Host {
  readonly context: vscode.ExtensionContext;
  readonly onDidChange: vscode.Event<ViewModel>;
  /** The current view model (immutable: a new object after every change). */
  state(): ViewModel;
  /** Apply actions to the view model, broadcast them, run their effects. */
  dispatch(...actions: Action[]): void;
  /** A message to every open panel. */
  post(msg: HostMessage): void;
  /** The running server's typed pi/* client; throws when no server runs. */
  rpc(): PiClient;
  /** What the connected server declared in `initialize` (none while disconnected). */
  features(): ServerFeatures;
  log(line: string): void;
  /** Show a session: resume it on the server and load its transcript. */
  loadSession(sessionId: string): Promise<void>;
  /** Pull what the panel shows of a session besides its events (state, review, checkpoints, MCP). */
  refresh(sessionId: string): Promise<void>;
}

/** `pi.*` settings, where they are set now (the workspace's value if it has one, else the user's). */
export async function updateSetting(key: string, value: unknown): Promise<void> {
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
