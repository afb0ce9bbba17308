// VS Code's provider results → standard LSP JSON, for pi/lspQuery (docs/protocol.md#lsp-query).
// Pure: the shapes below are the parts of vscode's classes we read, so the converter is unit
// tested without VS Code. VS Code's SymbolKind is 0-based (File = 0) and LSP's 1-based (File = 1);
// VS Code's DiagnosticSeverity is 0-based (Error = 0), LSP's 1-based (Error = 1).

export interface PositionLike {
  line: number;
  character: number;
}
export interface RangeLike {
  start: PositionLike;
  end: PositionLike;
}
export interface UriLike {
  toString(): string;
}
export interface LocationLike {
  uri: UriLike;
  range: RangeLike;
}
export interface LocationLinkLike {
  targetUri: UriLike;
  targetRange: RangeLike;
  targetSelectionRange?: RangeLike;
  originSelectionRange?: RangeLike;
}
export interface DocumentSymbolLike {
  name: string;
  detail?: string;
  kind: number;
  range: RangeLike;
  selectionRange: RangeLike;
  children?: DocumentSymbolLike[];
}
export interface SymbolInformationLike {
  name: string;
  kind: number;
  containerName?: string;
  location: LocationLike;
}
export interface MarkdownLike {
  value: string;
}
export interface HoverLike {
  contents: (MarkdownLike | string | { language: string; value: string })[];
  range?: RangeLike;
}
export interface CallHierarchyItemLike {
  name: string;
  kind: number;
  detail?: string;
  uri: UriLike;
  range: RangeLike;
  selectionRange: RangeLike;
}
export interface TextEditLike {
  range: RangeLike;
  newText: string;
}
export interface DiagnosticLike {
  range: RangeLike;
  message: string;
  severity?: number;
  source?: string;
  code?: string | number | { value: string | number };
}

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

export function position(p: PositionLike): { line: number; character: number } {
  return { line: p.line, character: p.character };
}

export function range(r: RangeLike): { [key: string]: Json } {
  return { start: position(r.start), end: position(r.end) };
}

/** VS Code's 0-based SymbolKind → LSP's 1-based one. */
export function symbolKind(kind: number): number {
  return kind + 1;
}

/** VS Code's 0-based DiagnosticSeverity → LSP's 1-based one. */
export function severity(value: number | undefined): number {
  return (value ?? 0) + 1;
}

function isLink(x: LocationLike | LocationLinkLike): x is LocationLinkLike {
  return (x as LocationLinkLike).targetUri !== undefined;
}

/** A definition / references / implementation result: Location[] or LocationLink[]. */
export function locations(items: readonly (LocationLike | LocationLinkLike)[] | undefined | null): Json {
  if (!items) return null;
  return items.map((item): Json =>
    isLink(item)
      ? {
          targetUri: item.targetUri.toString(),
          targetRange: range(item.targetRange),
          targetSelectionRange: range(item.targetSelectionRange ?? item.targetRange),
          ...(item.originSelectionRange ? { originSelectionRange: range(item.originSelectionRange) } : {}),
        }
      : { uri: item.uri.toString(), range: range(item.range) },
  );
}

/** Hovers of every provider, as one LSP Hover (Markdown parts joined). */
export function hover(items: readonly HoverLike[] | undefined | null): Json {
  if (!items || items.length === 0) return null;
  const parts: string[] = [];
  for (const h of items) {
    for (const c of h.contents) {
      if (typeof c === 'string') parts.push(c);
      else if ('language' in c) parts.push('```' + c.language + '\n' + c.value + '\n```');
      else parts.push(c.value);
    }
  }
  return { contents: { kind: 'markdown', value: parts.filter((p) => p.trim()).join('\n\n---\n\n') } };
}

function isDocumentSymbol(x: DocumentSymbolLike | SymbolInformationLike): x is DocumentSymbolLike {
  return (x as DocumentSymbolLike).selectionRange !== undefined;
}

function documentSymbol(s: DocumentSymbolLike): Json {
  return {
    name: s.name,
    ...(s.detail ? { detail: s.detail } : {}),
    kind: symbolKind(s.kind),
    range: range(s.range),
    selectionRange: range(s.selectionRange),
    children: (s.children ?? []).map(documentSymbol),
  };
}

export function symbolInformation(s: SymbolInformationLike): Json {
  return {
    name: s.name,
    kind: symbolKind(s.kind),
    ...(s.containerName ? { containerName: s.containerName } : {}),
    location: { uri: s.location.uri.toString(), range: range(s.location.range) },
  };
}

/** A document's symbols: DocumentSymbol trees or SymbolInformation lists. */
export function symbols(items: readonly (DocumentSymbolLike | SymbolInformationLike)[] | undefined | null): Json {
  if (!items) return null;
  return items.map((s): Json => (isDocumentSymbol(s) ? documentSymbol(s) : symbolInformation(s)));
}

/** A call hierarchy item; `id` lets the next request find VS Code's own item again. */
export function callItem(item: CallHierarchyItemLike, id: string): Json {
  return {
    name: item.name,
    kind: symbolKind(item.kind),
    ...(item.detail ? { detail: item.detail } : {}),
    uri: item.uri.toString(),
    range: range(item.range),
    selectionRange: range(item.selectionRange),
    data: { piItem: id },
  };
}

/** A rename's edit: `[uri, edits]` entries → `changes`. Returned as data, never applied here. */
export function workspaceEdit(entries: readonly [UriLike, readonly TextEditLike[]][] | undefined | null): Json {
  if (!entries) return null;
  const changes: { [uri: string]: Json } = {};
  for (const [uri, edits] of entries) {
    changes[uri.toString()] = edits.map((e) => ({ range: range(e.range), newText: e.newText }));
  }
  return { changes };
}

/** A document's diagnostics as a full pull report. */
export function diagnostics(items: readonly DiagnosticLike[]): Json {
  return {
    kind: 'full',
    items: items.map((d) => {
      const code = typeof d.code === 'object' && d.code !== null ? d.code.value : d.code;
      return {
        range: range(d.range),
        message: d.message,
        severity: severity(d.severity),
        ...(d.source ? { source: d.source } : {}),
        ...(code !== undefined ? { code } : {}),
      };
    }),
  };
}
