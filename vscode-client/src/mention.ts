// `@path#L10-20` mentions (docs/protocol.md §10). Pure.

/** The mention for a workspace-relative path and 0-based inclusive line range. */
export function mention(relPath: string, startLine?: number, endLine?: number): string {
  const p = relPath.replace(/\\/g, '/');
  const needsQuote = /\s/.test(p);
  const base = needsQuote ? `@"${p}"` : `@${p}`;
  if (startLine === undefined) return base;
  const end = endLine ?? startLine;
  return start1(startLine) === start1(end) ? `${base}#L${start1(startLine)}` : `${base}#L${start1(startLine)}-${start1(end)}`;
}

function start1(n: number): number {
  return n + 1;
}

/** The last line a selection really covers (a selection ending at column 0 excludes that line). */
export function selectionEndLine(startLine: number, endLine: number, endCharacter: number): number {
  return endLine > startLine && endCharacter === 0 ? endLine - 1 : endLine;
}

/** The `@query` being typed at `cursor` in `text`, if any (for file completion). */
export function mentionQueryAt(text: string, cursor: number): { start: number; query: string } | null {
  const before = text.slice(0, cursor);
  const m = /(^|\s)@([^\s@]*)$/.exec(before);
  if (!m) return null;
  return { start: cursor - m[2].length - 1, query: m[2] };
}

const ATTACHED = /\n\n(?:Selected code from|Diagnostics in|The file|Lines of|Contents of) `/;

/**
 * A user message as the server stored it: the typed text, then the attachments it appended
 * (`context`, §10 attachments, `@path` mentions). The panel shows the typed part and folds
 * the rest.
 */
export function splitAttached(text: string): { typed: string; attached: string } {
  const m = ATTACHED.exec(text);
  if (!m) return { typed: text, attached: '' };
  return { typed: text.slice(0, m.index), attached: text.slice(m.index + 2) };
}
