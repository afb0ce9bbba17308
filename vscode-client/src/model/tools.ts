// What a tool card shows: its title, one-line summary, clipped output and inline diff. Pure.

import type { PiEvent } from '../protocol/generated';
import type { DiffLine, WireEvent } from './types';

/** A tool argument that should be text; anything else (a malformed call) shows as nothing. */
const argText = (v: unknown): string => (typeof v === 'string' ? v : '');

export const HEAD_LINES = 40;
export const TAIL_LINES = 80;
const MAX_LINE = 400;
const MAX_DIFF_LINES = 400;

export function toolTitle(name: string, args: Record<string, unknown>): string {
  const s = (k: string) => (typeof args[k] === 'string' ? args[k] : '');
  let detail = '';
  switch (name) {
    case 'read':
    case 'write':
    case 'edit':
    case 'ls':
      detail = s('path');
      break;
    case 'bash':
      detail = s('command').split('\n')[0];
      break;
    case 'grep':
      detail = `${s('pattern')}${s('path') ? ` in ${s('path')}` : ''}`;
      break;
    case 'find':
      detail = s('pattern');
      break;
    default: {
      const first = Object.values(args).find((v) => typeof v === 'string');
      detail = typeof first === 'string' ? first : '';
    }
  }
  detail = detail.length > 120 ? `${detail.slice(0, 117)}…` : detail;
  // An MCP tool (docs/protocol.md §14): "MCP server: tool", then its arguments.
  const mcp = /^mcp__(.+?)__(.+)$/.exec(name);
  if (mcp) {
    const argsText = JSON.stringify(args);
    const shown = argsText.length > 120 ? `${argsText.slice(0, 117)}…` : argsText;
    return `MCP ${mcp[1]}: ${mcp[2]} ${shown}`;
  }
  if (name === 'mcp') return `MCP ${s('tool') || `search ${s('search')}`}`;
  return detail ? `${name} ${detail}` : name;
}

/** The text of a tool result / partial result (`{content: [{type:'text', text}]}`). */
export function toolOutputText(result: unknown): string {
  if (!result || typeof result !== 'object') return typeof result === 'string' ? result : '';
  const content = (result as Record<string, unknown>).content;
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content
    .map((c) => {
      const b = (c ?? {}) as Record<string, unknown>;
      if (b.type === 'text' && typeof b.text === 'string') return b.text;
      if (b.type === 'image') return '[image]';
      return '';
    })
    .join('');
}

/** Keep the head and the tail of long output (the card shows both, with the count cut). */
export function clipOutput(text: string): { output: string; outputLines: number; outputCut: number } {
  const lines = text.split('\n');
  if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  const n = lines.length;
  const cutLine = (l: string) => (l.length > MAX_LINE ? `${l.slice(0, MAX_LINE)}…` : l);
  if (n <= HEAD_LINES + TAIL_LINES) {
    return { output: lines.map(cutLine).join('\n'), outputLines: n, outputCut: 0 };
  }
  const cut = n - HEAD_LINES - TAIL_LINES;
  const head = lines.slice(0, HEAD_LINES).map(cutLine);
  const tail = lines.slice(n - TAIL_LINES).map(cutLine);
  return { output: `${head.join('\n')}\n… ${cut} lines not shown …\n${tail.join('\n')}`, outputLines: n, outputCut: cut };
}

export function summariseTool(name: string, _args: Record<string, unknown>, text: string, isError: boolean): string {
  const lines = text.split('\n').filter((l) => l.trim() !== '');
  const first = lines[0] ?? '';
  const one = first.length > 140 ? `${first.slice(0, 137)}…` : first;
  if (isError) return one || 'failed';
  switch (name) {
    case 'read':
      return `${lines.length} line${lines.length === 1 ? '' : 's'}`;
    case 'ls':
    case 'find':
      return `${lines.length} entr${lines.length === 1 ? 'y' : 'ies'}`;
    case 'grep':
      return `${lines.length} line${lines.length === 1 ? '' : 's'} matched`;
    case 'bash':
      return lines.length > 1 ? `${one} (+${lines.length - 1} lines)` : one || 'no output';
    default:
      return one;
  }
}

/** The inline diff of an `edit` / `write` card: the server's patch, else from the arguments. */
export function toolDiff(name: string, args: Record<string, unknown>, result: unknown): DiffLine[] | undefined {
  if (name !== 'edit' && name !== 'write') return undefined;
  const details = ((result ?? {}) as Record<string, unknown>).details as Record<string, unknown> | undefined;
  if (details && typeof details.patch === 'string' && details.patch) return parsePatch(details.patch);
  if (name === 'write') {
    const content = typeof args.content === 'string' ? args.content : '';
    return capDiff(content.split('\n').map((text) => ({ op: '+' as const, text })));
  }
  const edits: { oldText: string; newText: string }[] = [];
  if (Array.isArray(args.edits)) {
    for (const e of args.edits as Record<string, unknown>[]) {
      edits.push({ oldText: argText(e?.oldText), newText: argText(e?.newText) });
    }
  } else if (typeof args.oldText === 'string') {
    edits.push({ oldText: args.oldText, newText: argText(args.newText) });
  }
  const out: DiffLine[] = [];
  edits.forEach((e, i) => {
    if (i > 0) out.push({ op: ' ', text: '…' });
    out.push(...lineDiff(e.oldText.split('\n'), e.newText.split('\n')));
  });
  return capDiff(out);
}

export function parsePatch(patch: string): DiffLine[] {
  const out: DiffLine[] = [];
  for (const line of patch.split('\n')) {
    if (line.startsWith('---') || line.startsWith('+++') || line.startsWith('diff ') || line.startsWith('index ')) continue;
    if (line.startsWith('@@')) out.push({ op: ' ', text: line });
    else if (line.startsWith('+')) out.push({ op: '+', text: line.slice(1) });
    else if (line.startsWith('-')) out.push({ op: '-', text: line.slice(1) });
    else if (line.startsWith(' ')) out.push({ op: ' ', text: line.slice(1) });
    else if (line.startsWith('\\')) continue;
  }
  return capDiff(out);
}

/** A small LCS line diff (inputs capped; beyond that: all removed, then all added). */
export function lineDiff(a: string[], b: string[]): DiffLine[] {
  if (a.length * b.length > 250_000) {
    return [...a.map((text) => ({ op: '-' as const, text })), ...b.map((text) => ({ op: '+' as const, text }))];
  }
  const n = a.length;
  const m = b.length;
  const dp: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0));
  for (let i = n - 1; i >= 0; i--) {
    for (let j = m - 1; j >= 0; j--) {
      dp[i][j] = a[i] === b[j] ? dp[i + 1][j + 1] + 1 : Math.max(dp[i + 1][j], dp[i][j + 1]);
    }
  }
  const out: DiffLine[] = [];
  let i = 0;
  let j = 0;
  while (i < n && j < m) {
    if (a[i] === b[j]) {
      out.push({ op: ' ', text: a[i] });
      i++;
      j++;
    } else if (dp[i + 1][j] >= dp[i][j + 1]) {
      out.push({ op: '-', text: a[i++] });
    } else {
      out.push({ op: '+', text: b[j++] });
    }
  }
  while (i < n) out.push({ op: '-', text: a[i++] });
  while (j < m) out.push({ op: '+', text: b[j++] });
  return out;
}

function capDiff(lines: DiffLine[]): DiffLine[] {
  if (lines.length <= MAX_DIFF_LINES) return lines;
  return [...lines.slice(0, MAX_DIFF_LINES), { op: ' ', text: `… ${lines.length - MAX_DIFF_LINES} more lines` }];
}

const BIG = 32_000;

function clipText(text: string): string {
  if (text.length <= BIG) return text;
  const c = clipOutput(text);
  return c.outputCut > 0 ? c.output : `${text.slice(0, BIG / 2)}\n… ${text.length - BIG} characters not shown …\n${text.slice(-BIG / 2)}`;
}

/** The result (or message) with long text cut and image data dropped; the same object when
 * nothing needed cutting. */
function clipContent<T>(result: T): T {
  if (!result || typeof result !== 'object') return result;
  const r = result as Record<string, unknown>;
  if (!Array.isArray(r.content)) return result;
  let changed = false;
  const content = (r.content as Record<string, unknown>[]).map((b) => {
    if (b && b.type === 'text' && typeof b.text === 'string' && b.text.length > BIG) {
      changed = true;
      return { ...b, text: clipText(b.text) };
    }
    if (b && b.type === 'image') {
      changed = true;
      return { type: 'image', mimeType: b.mimeType, data: '' };
    }
    return b;
  });
  return changed ? ({ ...r, content } as T) : result;
}

/**
 * What of a `pi/event` the panel needs: the bulky parts nobody renders are dropped (the whole
 * run's messages on `agent_end`, the tool results repeated on `turn_end`, image data) and long
 * tool output is cut to its head and tail — before the event reaches the reducer, so the host
 * and the webview see the same, small event.
 */
export function slimEvent(ev: PiEvent): WireEvent {
  switch (ev.type) {
    case 'agent_end':
      return 'messages' in ev && Array.isArray(ev.messages) ? { ...ev, messages: [] } : ev;
    case 'turn_end':
      return { type: 'turn_end' };
    case 'tool_execution_update': {
      const r = clipContent(ev.partialResult);
      return r === ev.partialResult ? ev : { ...ev, partialResult: r };
    }
    case 'tool_execution_end': {
      const r = clipContent(ev.result);
      return r === ev.result ? ev : { ...ev, result: r };
    }
    case 'message_start':
    case 'message_end': {
      const m = ev.message;
      if (!m || (m.role !== 'toolResult' && m.role !== 'user')) return ev;
      const r = clipContent(m);
      return r === m ? ev : { ...ev, message: r };
    }
    default:
      return ev;
  }
}
