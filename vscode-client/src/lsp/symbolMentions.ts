// `@` completion of workspace symbols (feature table row 48): after `@` and two characters the
// composer offers, besides files, the symbols VS Code's language servers find for the query
// (vscode.executeWorkspaceSymbolProvider); picking one inserts `@path#L{start}-{end}` — the
// symbol's whole range, 1-based — which docs/protocol.md §10 attaches. Pure but for `find`.
import { mention } from '../mention';

export interface SymbolLike {
  name: string;
  containerName?: string;
  location: { uri: { fsPath?: string; toString(): string }; range: { start: { line: number }; end: { line: number; character: number } } };
}

export const MIN_QUERY = 2;
export const SHOWN = 20;

/** The mentions (without the `@`) of `symbols`, best first: names starting with the query, then
 * shorter names; symbols outside the workspace (`relative` gives `undefined`) are left out. */
export function symbolMentions(
  symbols: readonly SymbolLike[],
  query: string,
  relative: (s: SymbolLike) => string | undefined,
  limit = SHOWN,
): string[] {
  const q = query.toLowerCase();
  const ranked = symbols
    .map((s) => ({ s, rel: relative(s) }))
    .filter((x): x is { s: SymbolLike; rel: string } => x.rel !== undefined)
    .sort((a, b) => {
      const pa = a.s.name.toLowerCase().startsWith(q) ? 0 : 1;
      const pb = b.s.name.toLowerCase().startsWith(q) ? 0 : 1;
      return pa - pb || a.s.name.length - b.s.name.length || a.rel.localeCompare(b.rel);
    });
  const out: string[] = [];
  for (const { s, rel } of ranked) {
    const r = s.location.range;
    const end = r.end.line > r.start.line && r.end.character === 0 ? r.end.line - 1 : r.end.line;
    const m = mention(rel, r.start.line, end).slice(1);
    if (!out.includes(m)) out.push(m);
    if (out.length >= limit) break;
  }
  return out;
}

/** Whether a typed `@query` should look for symbols too (not a path being typed). */
export function wantsSymbols(query: string): boolean {
  return query.length >= MIN_QUERY && !query.includes('/') && !query.includes('.');
}
