// The composer's `@` symbols from VS Code's language servers (see ./symbolMentions).
import * as vscode from 'vscode';
import { symbolMentions, wantsSymbols } from './symbolMentions';

/** `path#Lx-y` mentions of the workspace symbols matching `query` ([] when none or too short). */
export async function findSymbolMentions(query: string): Promise<string[]> {
  if (!wantsSymbols(query)) return [];
  let found: vscode.SymbolInformation[] | undefined;
  try {
    found = await vscode.commands.executeCommand<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', query);
  } catch {
    return [];
  }
  return symbolMentions(found ?? [], query, (s) => {
    const folder = vscode.workspace.getWorkspaceFolder(s.location.uri as vscode.Uri);
    return folder ? vscode.workspace.asRelativePath(s.location.uri as vscode.Uri, false) : undefined;
  });
}
