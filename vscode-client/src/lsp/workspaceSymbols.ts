// The composer's `@` symbols from VS Code's language servers (see ./symbolMentions), asked on
// the webview's behalf once typing pauses (./latest: debounced, stale answers dropped).
import * as vscode from 'vscode';
import type { SymbolChoice } from '../protocol/messages';
import { Latest } from './latest';
import { symbolChoices, wantsSymbols } from './symbolMentions';

/** The workspace symbols matching `query` as completion choices ([] when none or too short). */
export async function findSymbolChoices(query: string): Promise<SymbolChoice[]> {
  if (!wantsSymbols(query)) return [];
  let found: vscode.SymbolInformation[] | undefined;
  try {
    found = await vscode.commands.executeCommand<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', query);
  } catch {
    return [];
  }
  return symbolChoices(found ?? [], query, (s) => {
    const folder = vscode.workspace.getWorkspaceFolder(s.location.uri as vscode.Uri);
    return folder ? vscode.workspace.asRelativePath(s.location.uri as vscode.Uri, false) : undefined;
  });
}

/** One panel's symbol search: the newest query only, 150 ms after the last keystroke. */
export function symbolSearch(): Latest<string, SymbolChoice[]> {
  return new Latest(findSymbolChoices);
}
