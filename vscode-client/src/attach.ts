// Context the user attaches: "pi: Add selection to prompt" (`@path#L10-20` into the input),
// "pi: Ask about this", and the "Fix with pi" code action that sends the diagnostics.

import * as vscode from 'vscode';
import type { Controller } from './controller';
import { mention, selectionEndLine } from './mention';
import { FINDING_SOURCE } from './model/findings';

export function selectionMention(editor: vscode.TextEditor): string {
  const rel = vscode.workspace.asRelativePath(editor.document.uri, false);
  const sel = editor.selection;
  if (sel.isEmpty) return mention(rel);
  const end = selectionEndLine(sel.start.line, sel.end.line, sel.end.character);
  return mention(rel, sel.start.line, end);
}

export function registerAttachments(
  context: vscode.ExtensionContext,
  controller: Controller,
  reveal: () => Thenable<unknown>,
): void {
  context.subscriptions.push(
    vscode.commands.registerCommand('pi.addSelection', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      // The user asked for it: the panel opens, but the cursor stays in the editor.
      controller.post({ type: 'insert', text: `${selectionMention(editor)} `, focus: false });
      await vscode.commands.executeCommand(`pi.panel.focus`, { preserveFocus: true });
      await vscode.window.showTextDocument(editor.document, { viewColumn: editor.viewColumn, preserveFocus: false });
    }),
    vscode.commands.registerCommand('pi.askAboutThis', async () => {
      const editor = vscode.window.activeTextEditor;
      if (!editor) return;
      await reveal();
      controller.post({ type: 'insert', text: `${selectionMention(editor)} `, focus: true });
    }),
    vscode.commands.registerCommand(
      'pi.fixWithPi',
      async (uriString: string, range: vscode.Range, diagnostics: vscode.Diagnostic[]) => {
        const uri = vscode.Uri.parse(uriString);
        const rel = vscode.workspace.asRelativePath(uri, false);
        const lines = diagnostics
          .map((d) => `- line ${d.range.start.line + 1}: ${d.source ? `${d.source}: ` : ''}${d.message}`)
          .join('\n');
        const c = controller.client;
        const items = c ? diagnostics.map((d) => c.code2ProtocolConverter.asDiagnostic(d)) : [];
        const r = { start: { line: range.start.line, character: 0 }, end: { line: range.end.line + 1, character: 0 } };
        await controller.prompt(
          `Fix these problems in ${rel} (lines ${range.start.line + 1}-${range.end.line + 1}):\n${lines}`,
          undefined,
          [{ diagnostics: { uri: uri.toString(), items } }],
          { uri: uri.toString(), range: r },
        );
      },
    ),
    vscode.languages.registerCodeActionsProvider(
      { scheme: 'file' },
      {
        provideCodeActions(document, range, ctx) {
          // a review finding (source "pi review") has the server's own "Fix with pi: <title>"
          const diags = ctx.diagnostics.filter((d) => d.severity <= vscode.DiagnosticSeverity.Warning && d.source !== FINDING_SOURCE);
          if (diags.length === 0) return [];
          const action = new vscode.CodeAction('Fix with pi', vscode.CodeActionKind.QuickFix);
          action.diagnostics = diags;
          const span = diags.reduce((acc, d) => acc.union(d.range), diags[0].range);
          action.command = {
            title: 'Fix with pi',
            command: 'pi.fixWithPi',
            arguments: [document.uri.toString(), span.union(range), diags],
          };
          return [action];
        },
      },
      { providedCodeActionKinds: [vscode.CodeActionKind.QuickFix] },
    ),
  );
}
