// `@` completion of workspace symbols (feature table row 48): after `@` and two characters the
// composer offers, besides files, the symbols VS Code's language servers find for the query
// (vscode.executeWorkspaceSymbolProvider); picking one inserts `@path#L{start}-{end}` — the
// symbol's whole range, 1-based — which docs/protocol.md §10 attaches. Pure.
import { mention } from '../mention';
import type { SymbolChoice } from '../protocol/messages';
import { matchRank } from '../symbolMatch';
import { symbolKind } from './toProtocol';

export interface SymbolLike {
  name: string;
  /** VS Code's 0-based SymbolKind (File = 0); converted with toProtocol's symbolKind. */
  kind: number;
  containerName?: string;
  location: { uri: { fsPath?: string; toString(): string }; range: { start: { line: number }; end: { line: number; character: number } } };
}

export const MIN_QUERY = 2;
export const SHOWN = 20;

/** LSP's SymbolKind names, by the 1-based LSP number (index 0 unused). */
const KIND_NAMES = [
  '', 'file', 'module', 'namespace', 'package', 'class', 'method', 'property', 'field', 'constructor',
  'enum', 'interface', 'function', 'variable', 'constant', 'string', 'number', 'boolean', 'array',
  'object', 'key', 'null', 'enum member', 'struct', 'event', 'operator', 'type parameter',
];

/** The name of LSP's 1-based SymbolKind `lspKind` ("symbol" when unknown). */
export function kindName(lspKind: number): string {
  return KIND_NAMES[lspKind] || 'symbol';
}

/** The choices for `symbols`, best first (match rank, then shorter names, then path);
 * symbols outside the workspace (`relative` gives `undefined`) are left out, and a language
 * server's fuzzy matches that do not contain the query's characters in order too. */
export function symbolChoices(
  symbols: readonly SymbolLike[],
  query: string,
  relative: (s: SymbolLike) => string | undefined,
  limit = SHOWN,
): SymbolChoice[] {
  const ranked = symbols
    .map((s) => ({ s, rel: relative(s), rank: matchRank(s.name, query) }))
    .filter((x): x is { s: SymbolLike; rel: string; rank: number } => x.rel !== undefined && x.rank !== undefined)
    .sort((a, b) => a.rank - b.rank || a.s.name.length - b.s.name.length || a.rel.localeCompare(b.rel));
  const out: SymbolChoice[] = [];
  for (const { s, rel } of ranked) {
    const r = s.location.range;
    const end = r.end.line > r.start.line && r.end.character === 0 ? r.end.line - 1 : r.end.line;
    const insert = mention(rel, r.start.line, end).slice(1);
    if (out.some((c) => c.insert === insert)) continue;
    out.push({ insert, name: s.name, kind: kindName(symbolKind(s.kind)), container: s.containerName || undefined, path: rel });
    if (out.length >= limit) break;
  }
  return out;
}

/** Whether a typed `@query` should look for symbols too (not a path being typed). */
export function wantsSymbols(query: string): boolean {
  return query.length >= MIN_QUERY && !query.includes('/') && !query.includes('.');
}
