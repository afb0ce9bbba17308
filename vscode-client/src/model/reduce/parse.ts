// Reading wire values into view-model shapes: defensive (a newer or older server may send
// more, less or differently typed fields), never throwing.

import type { AssistantBlock, McpServerRow, NoticeItem, Queue, TodoEntry, Usage } from '../types';
import type { Draft } from './draft';

export function notice(d: Draft, level: NoticeItem['level'], topic: string, text: string): NoticeItem {
  return { kind: 'notice', id: d.newId('n'), level, topic, text, rev: 0 };
}

/**
 * A `custom` message (docs/protocol.md §9.1: the review note) is what pi told the model, not the
 * user's words: a muted one-line marker, its full text behind it. Hidden ones (`display: false`)
 * are not shown.
 */
export function told(d: Draft, m: Record<string, unknown>): NoticeItem | null {
  if (m.display === false) return null;
  const full = typeof m.content === 'string' ? m.content
    : Array.isArray(m.content) ? m.content.map((c) => str(obj(c).text)).join('') : '';
  const summary = str(obj(m.details).summary);
  const line = summary || full.split('\n')[0] || str(m.customType);
  return { ...notice(d, 'info', 'told', `pi was told: ${line}`), detail: full };
}

export function normQueue(q: unknown): Queue {
  const o = obj(q);
  const list = (x: unknown) =>
    Array.isArray(x) ? x.map((e) => ({ id: str(obj(e).id), text: str(obj(e).text) })) : [];
  return { steering: list(o.steering), followUp: list(o.followUp) };
}

export function contentBlocks(content: unknown): AssistantBlock[] {
  if (typeof content === 'string') return [{ type: 'text', text: content }];
  if (!Array.isArray(content)) return [];
  return content.map((c): AssistantBlock => {
    const b = obj(c);
    if (b.type === 'thinking') return { type: 'thinking', text: str(b.thinking) };
    if (b.type === 'toolCall') return { type: 'toolCall', toolCallId: str(b.id), name: str(b.name) };
    return { type: 'text', text: str(b.text) };
  });
}

/** The head of a review note (docs/protocol.md §9.1). Older servers joined the note to the user's message. */
const NOTE_HEAD = '[The user reviewed your edits and undid these changes';

function isGluedNote(b: Record<string, unknown>): boolean {
  return b.type === 'text' && str(b.text).startsWith(NOTE_HEAD);
}

/** A review note an older server joined to a user message: the same marker as a note message. */
export function gluedNote(d: Draft, content: unknown): NoticeItem | null {
  if (!Array.isArray(content)) return null;
  const note = content.map((c) => obj(c)).find(isGluedNote);
  if (!note) return null;
  const full = str(note.text);
  return { ...notice(d, 'info', 'told', `pi was told: ${full.split('\n')[1]?.replace(/^- /, '') || 'what you undid'}`), detail: full };
}

/** The user's own words: text blocks, without a review note an older server joined to them. */
export function userText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => obj(c))
    .filter((b) => b.type === 'text' && !isGluedNote(b))
    .map((b) => str(b.text))
    .join('');
}

export function countImages(content: unknown): number {
  return Array.isArray(content) ? content.filter((c) => obj(c).type === 'image').length : 0;
}

export function normUsage(u: unknown): Usage | null {
  if (!u || typeof u !== 'object') return null;
  const o = u as Record<string, unknown>;
  const cost = o.cost;
  const costNum = typeof cost === 'number' ? cost : num(obj(cost).total) ?? 0;
  return {
    input: num(o.input) ?? 0,
    output: num(o.output) ?? 0,
    cacheRead: num(o.cacheRead) ?? 0,
    cacheWrite: num(o.cacheWrite) ?? 0,
    cost: costNum,
  };
}

export function addUsage(a: Usage, b: Usage): Usage {
  return {
    input: a.input + b.input,
    output: a.output + b.output,
    cacheRead: a.cacheRead + b.cacheRead,
    cacheWrite: a.cacheWrite + b.cacheWrite,
    cost: a.cost + b.cost,
  };
}

export function fmtTokens(n: number): string {
  if (n >= 1_000_000) return `${(n / 1_000_000).toFixed(1)}M`;
  if (n >= 10_000) return `${Math.round(n / 1000)}k`;
  if (n >= 1000) return `${(n / 1000).toFixed(1)}k`;
  return String(n);
}

export function obj(x: unknown): Record<string, unknown> {
  return x && typeof x === 'object' && !Array.isArray(x) ? (x as Record<string, unknown>) : {};
}

export function str(x: unknown): string {
  return typeof x === 'string' ? x : '';
}

export function num(x: unknown): number | null {
  return typeof x === 'number' && Number.isFinite(x) ? x : null;
}

export function normTodo(items: unknown[]): TodoEntry[] {
  return items.map((raw) => {
    const o = obj(raw);
    const status = o.status === 'completed' || o.status === 'in_progress' ? o.status : 'pending';
    return { id: str(o.id), content: str(o.content), status };
  });
}

export function normMcp(list: unknown[]): McpServerRow[] {
  const rows: McpServerRow[] = [];
  for (const raw of list) {
    if (!raw || typeof raw !== 'object') continue;
    const r = raw as Record<string, unknown>;
    if (typeof r.name !== 'string') continue;
    rows.push({
      name: r.name,
      source: str(r.source),
      transport: str(r.transport),
      target: str(r.target),
      state: str(r.state),
      message: typeof r.message === 'string' ? r.message : undefined,
      toolCount: num(r.toolCount) ?? 0,
    });
  }
  return rows;
}
