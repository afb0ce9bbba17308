// The panel's webviews: the view in the secondary side bar and, on request, an editor tab.
// Both load the same bundle under a strict CSP (nonce'd script, no remote content, resources
// only from the extension's dist/ and media/), receive the same broadcast, and every message
// they send goes through the controller's schema validation.

import * as crypto from 'crypto';
import * as vscode from 'vscode';
import type { Controller } from './controller';
import { waitingCount } from './nudgeRules';
import type { HostMessage } from './protocol/messages';

export const VIEW_ID = 'pi.panel';

/** Queues host → webview messages and posts them at most once per ~16 ms, merged. */
export class Outbox {
  private queue: HostMessage[] = [];
  private timer: NodeJS.Timeout | undefined;
  constructor(private readonly webview: Pick<vscode.Webview, 'postMessage'>) {}

  push(msg: HostMessage): void {
    // A snapshot replaces the actions queued before it (it already contains them); other
    // messages (an insert into the input, a session list) still go out.
    if (msg.type === 'snapshot') this.queue = this.queue.filter((m) => m.type !== 'actions' && m.type !== 'snapshot');
    this.queue.push(msg);
    if (!this.timer) this.timer = setTimeout(() => this.flush(), 16);
  }

  private flush(): void {
    this.timer = undefined;
    const batch: HostMessage[] = [];
    for (const m of this.queue) {
      const last = batch[batch.length - 1];
      if (m.type === 'actions' && last?.type === 'actions') last.actions = last.actions.concat(m.actions);
      else batch.push(m.type === 'actions' ? { type: 'actions', actions: m.actions.slice() } : m);
    }
    this.queue = [];
    for (const m of batch) void this.webview.postMessage(m);
  }

  dispose(): void {
    if (this.timer) clearTimeout(this.timer);
  }
}

function attach(webview: vscode.Webview, extensionUri: vscode.Uri, controller: Controller): vscode.Disposable {
  webview.options = {
    enableScripts: true,
    enableCommandUris: false,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
  webview.html = html(webview, extensionUri);
  const outbox = new Outbox(webview);
  const subs: vscode.Disposable[] = [
    controller.addListener((m) => outbox.push(m)),
    webview.onDidReceiveMessage(async (raw) => {
      try {
        await controller.handleWebviewMessage(raw);
      } catch (err) {
        const text = err instanceof Error ? err.message : String(err);
        controller.log(`panel: ${text}`);
        outbox.push({ type: 'toast', level: 'error', text });
      }
    }),
    outbox,
  ];
  return vscode.Disposable.from(...subs);
}

/** The panel's CSP: nothing remote, no inline or eval'd script, scripts only with the nonce. */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `style-src ${cspSource} 'nonce-${nonce}'`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    `script-src 'nonce-${nonce}'`,
    "connect-src 'none'",
    "frame-src 'none'",
    "form-action 'none'",
    "base-uri 'none'",
  ].join('; ');
}

export function html(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const nonce = crypto.randomBytes(18).toString('base64');
  const script = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.js'));
  const style = webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, 'dist', 'webview.css'));
  const csp = contentSecurityPolicy(webview.cspSource, nonce);
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="UTF-8">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="viewport" content="width=device-width, initial-scale=1.0">
<link rel="stylesheet" href="${style.toString()}" nonce="${nonce}">
<title>pi</title>
</head>
<body>
<div id="app" data-testid="app"></div>
<script nonce="${nonce}" src="${script.toString()}"></script>
</body>
</html>`;
}

/** The side-bar view. Its badge counts the permission questions and questions waiting. */
export class PanelViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private subs: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly controller: Controller,
  ) {
    this.subs.push(controller.onDidChange(() => this.updateBadge()));
  }

  /** Called when the view is shown or hidden (the nudges re-check). */
  onVisibility: () => void = () => {};

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.onDidChangeVisibility(() => this.onVisibility());
    const sub = attach(view.webview, this.extensionUri, this.controller);
    view.onDidDispose(() => {
      sub.dispose();
      if (this.view === view) this.view = undefined;
    });
    this.updateBadge();
  }

  get visible(): boolean {
    return !!this.view?.visible;
  }

  private lastBadge = -1;
  private updateBadge(): void {
    const on = vscode.workspace.getConfiguration('pi.notify').get<boolean>('badge', true);
    const n = on ? waitingCount(this.controller.state()) : 0;
    if (!this.view || n === this.lastBadge) return;
    this.lastBadge = n;
    this.view.badge = n > 0 ? { value: n, tooltip: `pi is waiting for ${n} answer${n === 1 ? '' : 's'} (permissions, questions)` } : undefined;
  }

  /** The badge's count (the test API reads it). */
  get badge(): number {
    return this.view?.badge?.value ?? 0;
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}

/** The same panel as an editor tab ("pi: Open panel in editor"). */
export function openPanelInEditor(extensionUri: vscode.Uri, controller: Controller): vscode.WebviewPanel {
  const panel = vscode.window.createWebviewPanel(
    'pi.panelEditor',
    'pi',
    { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false },
    { retainContextWhenHidden: false },
  );
  panel.iconPath = vscode.Uri.joinPath(extensionUri, 'media', 'pi.svg');
  const sub = attach(panel.webview, extensionUri, controller);
  panel.onDidDispose(() => {
    sub.dispose();
  });
  return panel;
}
