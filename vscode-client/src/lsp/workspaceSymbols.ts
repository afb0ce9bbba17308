// The composer's `@` symbols from VS Code's language servers (see ./symbolMentions), asked on
// the webview's behalf once typing pauses (./latest: debounced, stale answers dropped).
import * as vscode from 'vscode';
import type { SymbolChoice } from '../protocol/messages';
import { Latest } from './latest';
import { choiceOf, type LineRange, type OutlineLike, topSymbols, wantsSymbols, wholeRange } from './symbolMentions';

async function command<T>(name: string, ...args: unknown[]): Promise<T | undefined> {
  try {
    return await vscode.commands.executeCommand<T>(name, ...args);
  } catch {
    return undefined;
  }
}

/** The workspace symbols matching `query` as completion choices ([] when none or too short).
 * A symbol located by its name's line only is widened to its whole range from its file's
 * document symbols (one request per file). */
export async function findSymbolChoices(query: string): Promise<SymbolChoice[]> {
  if (!wantsSymbols(query)) return [];
  const found = await command<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', query);
  const top = topSymbols(found ?? [], query, (s) => {
    const folder = vscode.workspace.getWorkspaceFolder(s.location.uri as vscode.Uri);
    return folder ? vscode.workspace.asRelativePath(s.location.uri as vscode.Uri, false) : undefined;
  });
  const outlines = new Map<string, Promise<OutlineLike[] | undefined>>();
  const ranges = await Promise.all(
    top.map(async ({ s }): Promise<LineRange | undefined> => {
      const r = s.location.range;
      if (r.end.line > r.start.line) return undefined;
      const uri = s.location.uri as vscode.Uri;
      let outline = outlines.get(uri.toString());
      if (!outline) {
        outline = command<OutlineLike[]>('vscode.executeDocumentSymbolProvider', uri);
        outlines.set(uri.toString(), outline);
      }
      return wholeRange(await outline, s.name, r.start.line);
    }),
  );
  const out: SymbolChoice[] = [];
  top.forEach(({ s, rel }, i) => {
    const c = choiceOf(s, rel, ranges[i]);
    if (!out.some((o) => o.insert === c.insert)) out.push(c);
  });
  return out;
}

/** One panel's symbol search: the newest query only, 150 ms after the last keystroke. */
export function symbolSearch(): Latest<string, SymbolChoice[]> {
  return new Latest(findSymbolChoices);
}
