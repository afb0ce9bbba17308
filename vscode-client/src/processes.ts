// The "Background processes" view: the session's dev servers and watchers the agent started
// (`bash {background: true}`), with command, state, uptime and last output line, and a stop
// button (`pi/processes`). It follows the `processes_update` event (a process started or
// ended); showing the view fetches the list once (uptime, last lines as of then). No polling.

import * as vscode from 'vscode';
import type { Controller } from './controller';
import { processRow, type ProcessRow } from './nudgeRules';

export const PROCESSES_VIEW = 'pi.processes';

class ProcessItem extends vscode.TreeItem {
  constructor(readonly row: ProcessRow) {
    const shown = processRow(row);
    super(shown.label, vscode.TreeItemCollapsibleState.None);
    this.id = row.id;
    this.description = shown.description;
    this.tooltip = shown.tooltip;
    this.contextValue = row.running ? 'running' : 'ended';
    this.iconPath = new vscode.ThemeIcon(row.running ? 'play-circle' : 'circle-slash');
  }
}

export class ProcessesView implements vscode.TreeDataProvider<ProcessItem>, vscode.Disposable {
  private rows: ProcessRow[] = [];
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  private view: vscode.TreeView<ProcessItem> | undefined;
  private readonly subs: vscode.Disposable[] = [];

  constructor(private readonly controller: Controller) {
    this.subs.push(
      this.changed,
      controller.onServerEvent((ev) => {
        if (ev.type === 'processes_update') this.set(ev.processes); // typed: the contract's ProcessInfo
      }),
    );
  }

  register(): vscode.Disposable {
    this.view = vscode.window.createTreeView(PROCESSES_VIEW, { treeDataProvider: this });
    this.subs.push(this.view, this.view.onDidChangeVisibility((e) => (e.visible ? void this.refresh() : undefined)));
    return this;
  }

  /** The rows shown (the test API reads them). */
  get current(): readonly ProcessRow[] {
    return this.rows;
  }

  private set(rows: ProcessRow[]): void {
    this.rows = rows;
    const running = rows.filter((r) => r.running).length;
    if (this.view) {
      this.view.badge = running > 0 ? { value: running, tooltip: `${running} background process${running === 1 ? '' : 'es'} running` } : undefined;
      this.view.message = rows.length === 0 ? 'No background processes in this session.' : undefined;
    }
    this.changed.fire();
  }

  async refresh(): Promise<void> {
    const sessionId = this.controller.state().sessionId;
    if (!sessionId || !this.controller.features().has('processes')) return;
    try {
      const res = await this.controller.rpc().processes({ sessionId });
      this.set(res.processes as ProcessRow[]);
    } catch (err) {
      this.controller.log(`listing the background processes failed: ${String(err)}`);
    }
  }

  async stop(item?: ProcessItem | string): Promise<void> {
    const id = typeof item === 'string' ? item : item?.row.id;
    const sessionId = this.controller.state().sessionId;
    if (!id || !sessionId) return;
    const res = await this.controller.rpc().processes({ sessionId, op: 'kill', id });
    this.set(res.processes as ProcessRow[]);
  }

  getTreeItem(item: ProcessItem): vscode.TreeItem {
    return item;
  }

  getChildren(): ProcessItem[] {
    return this.rows.map((r) => new ProcessItem(r));
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
