// Review in the real editor (docs/protocol.md §9): every pending hunk gets Keep / Undo CodeLenses and
// a highlight; commands and keybindings walk, keep and undo hunks. Nothing here moves the
// cursor unless the user ran a navigation command.

import * as vscode from 'vscode';
import type { Controller } from './controller';
import { hunkAt, stepHunk } from './model/hunks';
import type { Hunk, ReviewFile } from './model/types';

function toRange(h: Hunk): vscode.Range {
  return new vscode.Range(h.range.start.line, h.range.start.character, h.range.end.line, h.range.end.character);
}

/** The hunk under (or nearest after) the cursor in the active editor. */
function hunkAtCursor(files: ReviewFile[]): { hunk: Hunk } | undefined {
  const ed = vscode.window.activeTextEditor;
  if (!ed) return undefined;
  return hunkAt(files, ed.document.uri.toString(), ed.selection.active.line);
}

export function registerReview(context: vscode.ExtensionContext, controller: Controller): void {
  const lensChanged = new vscode.EventEmitter<void>();
  const added = vscode.window.createTextEditorDecorationType({
    backgroundColor: new vscode.ThemeColor('diffEditor.insertedLineBackground'),
    isWholeLine: true,
    overviewRulerColor: new vscode.ThemeColor('editorOverviewRuler.addedForeground'),
    overviewRulerLane: vscode.OverviewRulerLane.Left,
  });
  const removed = vscode.window.createTextEditorDecorationType({
    borderColor: new vscode.ThemeColor('diffEditor.removedTextBorder'),
    borderStyle: 'solid none none none',
    borderWidth: '2px 0 0 0',
    isWholeLine: true,
  });

  let last: ReviewFile[] | null = null;
  const paint = () => {
    const files = controller.state().review;
    for (const ed of vscode.window.visibleTextEditors) {
      const f = files.find((x) => x.uri === ed.document.uri.toString());
      const adds: vscode.DecorationOptions[] = [];
      const dels: vscode.DecorationOptions[] = [];
      for (const h of f?.hunks ?? []) {
        const hover = new vscode.MarkdownString();
        hover.appendMarkdown('**pi changed this** — Keep or Undo (CodeLens above)');
        if (h.oldText) hover.appendCodeblock(h.oldText.slice(0, 2000), ed.document.languageId);
        const r = toRange(h);
        if (h.newText === '') dels.push({ range: new vscode.Range(r.start.line, 0, r.start.line, 0), hoverMessage: hover });
        else {
          const endLine = r.end.character === 0 && r.end.line > r.start.line ? r.end.line - 1 : r.end.line;
          adds.push({ range: new vscode.Range(r.start.line, 0, endLine, 0), hoverMessage: hover });
        }
      }
      ed.setDecorations(added, adds);
      ed.setDecorations(removed, dels);
    }
  };
  const onState = () => {
    const files = controller.state().review;
    if (files === last) return;
    last = files;
    const pending = files.reduce((n, f) => n + f.hunks.length, 0);
    void vscode.commands.executeCommand('setContext', 'pi.hasPendingHunks', pending > 0);
    lensChanged.fire();
    paint();
  };

  const decide = async (decision: 'keep' | 'undo', hunkIds: string[], reason?: string) => {
    if (hunkIds.length === 0) return;
    await controller.reviewDecision(hunkIds.map((hunkId) => (reason ? { hunkId, decision, reason } : { hunkId, decision })));
  };
  const idsOf = (uri?: string) =>
    controller
      .state()
      .review.filter((f) => uri === undefined || f.uri === uri)
      .flatMap((f) => f.hunks.map((h) => h.id));

  const reveal = async (uri: string, h: Hunk) => {
    const doc = await vscode.workspace.openTextDocument(vscode.Uri.parse(uri));
    const ed = await vscode.window.showTextDocument(doc, { preserveFocus: false, preview: true });
    const r = toRange(h);
    ed.selection = new vscode.Selection(r.start, r.start);
    ed.revealRange(r, vscode.TextEditorRevealType.InCenterIfOutsideViewport);
  };
  const step = async (dir: 1 | -1) => {
    const ed = vscode.window.activeTextEditor;
    const next = stepHunk(controller.state().review, ed?.document.uri.toString(), ed?.selection.active.line ?? -1, dir);
    if (!next) {
      void vscode.window.setStatusBarMessage('pi: no changes to review', 2000);
      return;
    }
    await reveal(next.uri, next.hunk);
  };

  context.subscriptions.push(
    lensChanged,
    added,
    removed,
    controller.onDidChange(onState),
    vscode.window.onDidChangeVisibleTextEditors(paint),
    vscode.languages.registerCodeLensProvider(
      { scheme: 'file' },
      {
        onDidChangeCodeLenses: lensChanged.event,
        provideCodeLenses(document) {
          const f = controller.state().review.find((x) => x.uri === document.uri.toString());
          if (!f) return [];
          return f.hunks.flatMap((h) => {
            const at = new vscode.Range(h.range.start.line, 0, h.range.start.line, 0);
            return [
              new vscode.CodeLens(at, { title: 'Keep', command: 'pi.review.keep', arguments: [h.id], tooltip: 'Keep this change by pi' }),
              new vscode.CodeLens(at, { title: 'Undo', command: 'pi.review.undo', arguments: [h.id], tooltip: 'Undo this change; pi is told' }),
              new vscode.CodeLens(at, {
                title: 'Undo with reason…',
                command: 'pi.review.undoWithReason',
                arguments: [h.id],
                tooltip: 'Undo this change and tell pi why',
              }),
            ];
          });
        },
      },
    ),
    vscode.commands.registerCommand('pi.review.keep', async (hunkId?: string) => {
      const id = hunkId ?? hunkAtCursor(controller.state().review)?.hunk.id;
      if (id) await decide('keep', [id]);
    }),
    vscode.commands.registerCommand('pi.review.undo', async (hunkId?: string, reason?: string) => {
      const id = hunkId ?? hunkAtCursor(controller.state().review)?.hunk.id;
      if (id) await decide('undo', [id], reason);
    }),
    vscode.commands.registerCommand('pi.review.undoWithReason', async (hunkId?: string) => {
      const id = hunkId ?? hunkAtCursor(controller.state().review)?.hunk.id;
      if (!id) return;
      const reason = await vscode.window.showInputBox({
        title: 'pi: why undo this change?',
        prompt: 'Optional: pi reads this before its next step.',
      });
      if (reason === undefined) return;
      await decide('undo', [id], reason || undefined);
    }),
    vscode.commands.registerCommand('pi.review.next', () => step(1)),
    vscode.commands.registerCommand('pi.review.previous', () => step(-1)),
    vscode.commands.registerCommand('pi.review.keepFile', async (uri?: string | vscode.Uri) => {
      const u = uri ? uri.toString() : vscode.window.activeTextEditor?.document.uri.toString();
      if (u) await decide('keep', idsOf(u));
    }),
    vscode.commands.registerCommand('pi.review.undoFile', async (uri?: string | vscode.Uri) => {
      const u = uri ? uri.toString() : vscode.window.activeTextEditor?.document.uri.toString();
      if (u) await decide('undo', idsOf(u));
    }),
    vscode.commands.registerCommand('pi.review.keepAll', () => decide('keep', idsOf())),
    vscode.commands.registerCommand('pi.review.undoAll', () => decide('undo', idsOf())),
  );
  onState();
}
