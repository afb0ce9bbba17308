// Entry point: creates the controller, the panel, the review lenses and the commands, starts
// the server, and returns the test API (api.ts).

import * as vscode from 'vscode';
import type { PiApi } from './api';
import { registerAttachments } from './attach';
import { Controller } from './controller';
import { registerFindings } from './findings';
import { Nudges } from './nudges';
import { openPanelInEditor, PanelViewProvider, VIEW_ID } from './panel';
import { ProcessesView } from './processes';
import { registerReview } from './review';

export function activate(context: vscode.ExtensionContext): PiApi {
  const output = vscode.window.createOutputChannel('pi', { log: true });
  const controller = new Controller(context, output);
  const provider = new PanelViewProvider(context.extensionUri, controller);
  context.subscriptions.push(
    output,
    controller,
    provider,
    vscode.window.registerWebviewViewProvider(VIEW_ID, provider, { webviewOptions: { retainContextWhenHidden: true } }),
  );

  const cmd = (id: string, fn: (...args: never[]) => unknown) =>
    context.subscriptions.push(vscode.commands.registerCommand(id, fn));

  // Opening the panel is the user's own action; the agent never does it.
  const reveal = () => vscode.commands.executeCommand(`${VIEW_ID}.focus`);
  cmd('pi.focus', reveal);
  cmd('pi.openInEditor', () => openPanelInEditor(context.extensionUri, controller));
  cmd('pi.newChat', () => controller.newSession());
  cmd('pi.stop', () => controller.abort());
  cmd('pi.setApiKey', () => controller.setApiKey());
  cmd('pi.restartServer', () => controller.restart());
  cmd('pi.showLog', () => output.show(true));
  cmd('pi.sessions', async () => {
    await reveal();
    await controller.listSessions();
  });
  cmd('pi.permissionRules', () => controller.manageRules());
  cmd('pi.compact', () => controller.compact());
  cmd('pi.reloadContext', () => controller.reloadContext());
  cmd('pi.exportSession', () => controller.exportSession());

  // Background processes: the view with a stop button; nudges when the user is away.
  const processes = new ProcessesView(controller);
  const nudges = new Nudges(controller, () => provider.visible);
  context.subscriptions.push(processes.register(), nudges);
  provider.onVisibility = () => nudges.visibilityChanged();
  cmd('pi.refreshProcesses', () => processes.refresh());
  cmd('pi.stopProcess', (item?: never) => processes.stop(item));

  // A quiet status item: the run's state and waiting questions; a click opens the panel.
  const status = vscode.window.createStatusBarItem('pi.status', vscode.StatusBarAlignment.Right, 100);
  status.name = 'pi';
  status.command = 'pi.focus';
  let lastStatus = '';
  const paintStatus = () => {
    const s = controller.state();
    const waiting = s.permissions.length + s.questions.length;
    const text =
      s.server.status === 'missing' || s.server.status === 'error'
        ? '$(error) pi'
        : waiting > 0
          ? `$(question) pi: ${waiting} waiting`
          : s.isStreaming
            ? `$(loading~spin) pi: turn ${s.turn}`
            : '$(comment-discussion) pi';
    if (text === lastStatus) return;
    lastStatus = text;
    status.text = text;
    status.tooltip =
      waiting > 0 ? 'pi is waiting for your answer (open the panel)' : s.isStreaming ? 'pi is working (open the panel)' : 'Open the pi panel';
    status.backgroundColor = waiting > 0 ? new vscode.ThemeColor('statusBarItem.warningBackground') : undefined;
    status.show();
  };
  context.subscriptions.push(status, controller.onDidChange(paintStatus));
  paintStatus();

  registerAttachments(context, controller, reveal);
  registerReview(context, controller);
  registerFindings(context, controller);

  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration((e) => {
      if (e.affectsConfiguration('pi.input') || e.affectsConfiguration('pi.edits')) controller.postSettings();
      if (e.affectsConfiguration('pi.notify.badge')) controller.dispatch();
      if (e.affectsConfiguration('pi.server')) {
        void controller.restart();
      } else if (e.affectsConfiguration('pi.provider') || e.affectsConfiguration('pi.apiKeyEnv')) {
        // A stored key travels in the process environment: restart only when one applies.
        void controller.hasApiKey().then((has) => {
          if (has) void controller.restart();
        });
      }
    }),
  );

  void controller.start();

  const api: PiApi = {
    get client() {
      return controller.client;
    },
    get ready() {
      return controller.ready;
    },
    state: () => controller.state(),
    prompt: (text, deliverAs, attachments) => controller.prompt(text, deliverAs, attachments),
    abort: () => controller.abort(),
    newSession: () => controller.newSession(),
    resumeSession: (sessionId) => controller.loadSession(sessionId),
    webviewMessage: (msg) => controller.handleWebviewMessage(msg),
    restartServer: () => controller.restart(),
    onDidChange: controller.onDidChange,
    nudges: () => nudges.shown,
    badge: () => provider.badge,
    processes: () => processes.current,
    stopProcess: (id) => processes.stop(id),
  };
  return api;
}

export function deactivate(): void {
  // The controller is disposed through context.subscriptions (stops the server).
}
