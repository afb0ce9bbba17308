// The "Review" section of the pi view container (docs/review.md#in-an-editor): a code
// review's findings — the diagnostics with source "pi review" — grouped by file; a click
// opens the finding's line, where the light bulb has Fix with pi / Explain / Dismiss. The
// "pi: Review Changes" command (pi.reviewChanges; the server itself offers pi.codeReview, which the language
// client registers) runs a review of the working tree. The section starts collapsed (its header
// only: an empty tree took half the container) and opens when findings arrive.

import * as vscode from 'vscode';
import type { Controller } from './controller';
import { FINDING_SOURCE, type FindingGroup, type FindingItem, groupFindings, summary } from './model/findings';

export const FINDINGS_VIEW = 'pi.findings';

type Node = FindingGroup | FindingItem;

const ICONS: Record<FindingItem['severity'], string> = { error: 'error', warning: 'warning', info: 'info' };

class FindingsTree implements vscode.TreeDataProvider<Node> {
  private readonly changed = new vscode.EventEmitter<void>();
  readonly onDidChangeTreeData = this.changed.event;
  groups: FindingGroup[] = [];

  refresh(): void {
    const roots = (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.toString());
    const entries = vscode.languages
      .getDiagnostics()
      .filter(([, ds]) => ds.some((d) => d.source === FINDING_SOURCE))
      .map(([uri, ds]) => [uri.toString(), ds] as const);
    this.groups = groupFindings(entries, roots);
    this.changed.fire();
  }

  getChildren(node?: Node): Node[] {
    if (node === undefined) return this.groups;
    return 'findings' in node ? node.findings : [];
  }

  getParent(node: Node): Node | undefined {
    return 'findings' in node ? undefined : this.groups.find((g) => g.findings.includes(node));
  }

  getTreeItem(node: Node): vscode.TreeItem {
    if ('findings' in node) {
      const item = new vscode.TreeItem(node.path, vscode.TreeItemCollapsibleState.Expanded);
      item.resourceUri = vscode.Uri.parse(node.uri);
      item.description = `${node.findings.length}`;
      item.iconPath = vscode.ThemeIcon.File;
      return item;
    }
    const item = new vscode.TreeItem(node.label, vscode.TreeItemCollapsibleState.None);
    item.iconPath = new vscode.ThemeIcon(ICONS[node.severity]);
    item.tooltip = `${node.severity}: ${node.title}`;
    item.command = {
      command: 'vscode.open',
      title: 'Open',
      arguments: [vscode.Uri.parse(node.uri), { selection: new vscode.Range(node.line, node.character, node.line, node.character) }],
    };
    return item;
  }
}

export function registerFindings(context: vscode.ExtensionContext, controller: Controller): void {
  const tree = new FindingsTree();
  const view = vscode.window.createTreeView(FINDINGS_VIEW, { treeDataProvider: tree, showCollapseAll: true });
  const paint = () => {
    const had = tree.groups.length > 0;
    tree.refresh();
    view.description = tree.groups.length > 0 ? summary(tree.groups) : undefined;
    // findings arrived: open the collapsed section (without taking the focus)
    if (!had && tree.groups.length > 0) void view.reveal(tree.groups[0], { expand: true, focus: false, select: false }).then(undefined, () => undefined);
  };
  context.subscriptions.push(
    view,
    vscode.languages.onDidChangeDiagnostics(paint),
    vscode.commands.registerCommand('pi.reviewChanges', async () => {
      await vscode.window.withProgress(
        { location: { viewId: FINDINGS_VIEW }, title: 'pi: reviewing the changes' },
        async () => {
          try {
            const report = await controller.rpc().codeReview({});
            const note = report.notes.length > 0 ? ` ${report.notes.join(' ')}` : '';
            void vscode.window.showInformationMessage(`pi review: ${report.findings.length} findings.${note}`);
          } catch (err) {
            void vscode.window.showErrorMessage(`pi review: ${err instanceof Error ? err.message : String(err)}`);
          }
        },
      );
    }),
  );
  paint();
}
