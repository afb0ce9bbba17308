// The `@` completion list's rows: files (the host's `files`) and workspace symbols (its
// `symbols`, which come later: they are debounced). A path being typed (`src/`, `a.py`) lists
// files only; a name lists the files whose name starts with it, then the symbols, then the other
// files. Pure.
import type { SymbolChoice } from '../protocol/messages';
import { matchRank } from '../symbolMatch';

export type MentionItem = { type: 'file'; insert: string } | ({ type: 'symbol' } & SymbolChoice);

function baseName(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1).toLowerCase();
}

export function isPathLike(query: string): boolean {
  return query.includes('/') || query.includes('.');
}

/** Files and symbols in the order the list shows them. */
export function mentionItems(query: string, files: readonly string[], symbols: readonly SymbolChoice[]): MentionItem[] {
  const asFile = (f: string): MentionItem => ({ type: 'file', insert: f });
  if (isPathLike(query) || symbols.length === 0) return files.map(asFile);
  const q = query.toLowerCase();
  const strong = files.filter((f) => baseName(f).startsWith(q));
  const weak = files.filter((f) => !baseName(f).startsWith(q));
  return [...strong.map(asFile), ...symbols.map((s): MentionItem => ({ type: 'symbol', ...s })), ...weak.map(asFile)];
}

/** The symbols of the previous query still worth showing for `query` while its own answer is
 * on the way: only when `query` extends the previous one, and only those that still match. */
export function keptSymbols(previous: string, query: string, symbols: readonly SymbolChoice[]): SymbolChoice[] {
  if (!query.startsWith(previous) || isPathLike(query)) return [];
  return symbols.filter((s) => matchRank(s.name, query) !== undefined);
}

/** The short kind badge of a symbol row ("fn", "class", …). */
export function kindBadge(kind: string): string {
  const short: Record<string, string> = {
    function: 'fn', method: 'method', class: 'class', variable: 'var', constant: 'const', property: 'prop',
    field: 'field', constructor: 'ctor', interface: 'iface', module: 'mod', namespace: 'ns', enum: 'enum',
    'enum member': 'enum', struct: 'struct', 'type parameter': 'type', package: 'pkg', file: 'file',
  };
  return short[kind] ?? kind;
}
