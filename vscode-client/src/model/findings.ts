// A code review's findings (docs/review.md) as the "Review" section lists them: the
// diagnostics whose source is "pi review", grouped by file (files in path order, findings by
// line). Pure: no vscode import, so the unit tests run it under node.

export const FINDING_SOURCE = 'pi review';

export type FindingSeverity = 'error' | 'warning' | 'info';

/** The part of a diagnostic the section reads (vscode's Diagnostic has these fields). */
export interface DiagnosticLike {
  message: string;
  source?: string;
  severity: number; // vscode.DiagnosticSeverity: 0 error, 1 warning, 2 information, 3 hint
  range: { start: { line: number; character: number } };
  code?: unknown;
}

export interface FindingItem {
  uri: string;
  line: number; // 0-based
  character: number;
  title: string;
  severity: FindingSeverity;
  label: string;
}

export interface FindingGroup {
  uri: string;
  path: string;
  findings: FindingItem[];
}

const SEVERITY: FindingSeverity[] = ['error', 'warning', 'info', 'info'];

/** The workspace-relative path of `uri` (the last segments when it is outside every root). */
export function relativePath(uri: string, roots: readonly string[]): string {
  for (const root of roots) {
    const base = root.endsWith('/') ? root : `${root}/`;
    if (uri.startsWith(base)) return decodeURIComponent(uri.slice(base.length));
  }
  return decodeURIComponent(uri.split('/').slice(-2).join('/'));
}

/** The findings among every file's diagnostics, grouped by file. */
export function groupFindings(
  entries: readonly (readonly [string, readonly DiagnosticLike[]])[],
  roots: readonly string[],
): FindingGroup[] {
  const groups: FindingGroup[] = [];
  for (const [uri, diagnostics] of entries) {
    const findings = diagnostics
      .filter((d) => d.source === FINDING_SOURCE)
      .map((d) => {
        const severity = SEVERITY[d.severity] ?? 'info';
        const line = d.range.start.line;
        return { uri, line, character: d.range.start.character, title: d.message, severity, label: `${line + 1}: ${d.message}` };
      })
      .sort((a, b) => a.line - b.line);
    if (findings.length > 0) groups.push({ uri, path: relativePath(uri, roots), findings });
  }
  return groups.sort((a, b) => a.path.localeCompare(b.path));
}

/** "3 findings (1 error, 2 warnings)". */
export function summary(groups: readonly FindingGroup[]): string {
  const all = groups.flatMap((g) => g.findings);
  if (all.length === 0) return 'No findings';
  const parts: string[] = [];
  for (const s of ['error', 'warning', 'info'] as const) {
    const n = all.filter((f) => f.severity === s).length;
    if (n > 0) parts.push(`${n} ${s}${n > 1 && s !== 'info' ? 's' : ''}`);
  }
  return `${all.length} finding${all.length > 1 ? 's' : ''} (${parts.join(', ')})`;
}
