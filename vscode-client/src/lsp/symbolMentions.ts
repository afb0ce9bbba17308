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

export interface LineRange {
  start: { line: number };
  end: { line: number; character: number };
}

/** The best `limit` symbols for `query` (match rank, then shorter names, then path), each with
 * its workspace-relative path; symbols outside the workspace (`relative` gives `undefined`) are
 * left out, and a language server's fuzzy matches that do not hold the query's characters in
 * order too. */
export function topSymbols(
  symbols: readonly SymbolLike[],
  query: string,
  relative: (s: SymbolLike) => string | undefined,
  limit = SHOWN,
): { s: SymbolLike; rel: string }[] {
  const ranked = symbols
    .map((s) => ({ s, rel: relative(s), rank: matchRank(s.name, query) }))
    .filter((x): x is { s: SymbolLike; rel: string; rank: number } => x.rel !== undefined && x.rank !== undefined)
    .sort((a, b) => a.rank - b.rank || a.s.name.length - b.s.name.length || a.rel.localeCompare(b.rel));
  const out: { s: SymbolLike; rel: string }[] = [];
  const seen = new Set<string>();
  for (const { s, rel } of ranked) {
    const key = `${rel}#${s.location.range.start.line}#${s.name}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ s, rel });
    if (out.length >= limit) break;
  }
  return out;
}

/** The completion choice of one symbol; `range` (default: its location's) gives the lines. */
export function choiceOf(s: SymbolLike, rel: string, range: LineRange = s.location.range): SymbolChoice {
  const end = range.end.line > range.start.line && range.end.character === 0 ? range.end.line - 1 : range.end.line;
  const insert = mention(rel, range.start.line, end).slice(1);
  return { insert, name: s.name, kind: kindName(symbolKind(s.kind)), container: s.containerName || undefined, path: rel };
}

/** The choices for `symbols`, best first (see topSymbols). */
export function symbolChoices(
  symbols: readonly SymbolLike[],
  query: string,
  relative: (s: SymbolLike) => string | undefined,
  limit = SHOWN,
): SymbolChoice[] {
  return topSymbols(symbols, query, relative, limit).map(({ s, rel }) => choiceOf(s, rel));
}

/** What a document-symbol provider answers: DocumentSymbol trees or flat SymbolInformation. */
export interface OutlineLike {
  name: string;
  range?: LineRange;
  selectionRange?: { start: { line: number }; end: { line: number } };
  location?: { range: LineRange };
  children?: OutlineLike[];
}

/**
 * The whole range of the symbol `name` whose name is on `line`, from its file's outline.
 * Several servers (jedi, pyright) locate a workspace symbol by its name only; the mention must
 * cover the body, so the document symbols widen it. Undefined when the outline has no such
 * symbol (the name's line is used then).
 */
export function wholeRange(outline: readonly OutlineLike[] | undefined, name: string, line: number): LineRange | undefined {
  let best: LineRange | undefined;
  const visit = (nodes: readonly OutlineLike[]): void => {
    for (const n of nodes) {
      const r = n.range ?? n.location?.range;
      const sel = n.selectionRange ?? r;
      if (r && sel && n.name === name && sel.start.line <= line && line <= sel.end.line) best = r;
      if (n.children) visit(n.children);
    }
  };
  visit(outline ?? []);
  return best;
}

/** Whether a typed `@query` should look for symbols too (not a path being typed). */
export function wantsSymbols(query: string): boolean {
  return query.length >= MIN_QUERY && !query.includes('/') && !query.includes('.');
}
