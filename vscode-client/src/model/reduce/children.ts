// `task` children (docs/subagents.md): the parent's `subagent_update` puts the child on its
// `task` card (state, usage); the child's own events (pi/event with parentSessionId) grow the
// card's transcript — its text and its tool calls.

import type { ChildEntry, ChildView, ToolItem, WireEvent } from '../types';
import { toolOutputText, toolTitle } from '../tools';
import type { Draft } from './draft';
import { ensureTool } from './messages';
import { obj, str } from './parse';

const MAX_ENTRIES = 400;
const MAX_TEXT = 20_000;

export function applySubagentUpdate(d: Draft, ev: Extract<WireEvent, { type: 'subagent_update' }>): void {
  const t = ensureTool(d, str(ev.toolCallId), 'task', {});
  d.update<ToolItem>(t.id, (x) => {
    const prev = x.child;
    const child: ChildView = {
      id: str(ev.childSessionId),
      agent: str(ev.agent),
      description: str(ev.description),
      state: ev.state,
      usage: ev.usage ?? prev?.usage,
      entries: prev && prev.id === ev.childSessionId ? prev.entries : [],
    };
    x.child = child;
  });
}

function cardOf(d: Draft, childId: string): ToolItem | undefined {
  for (const item of d.vm.items) {
    if (item.kind === 'tool' && item.child?.id === childId) return item;
  }
  return undefined;
}

export function applyChildEvent(d: Draft, childId: string, ev: WireEvent): void {
  const card = cardOf(d, childId);
  if (!card) return; // announced first (subagent_update); nothing to attach it to otherwise
  d.update<ToolItem>(card.id, (x) => {
    if (!x.child) return;
    const entries = x.child.entries.slice();
    const last = entries[entries.length - 1];
    switch (ev.type) {
      case 'message_update': {
        const u = ev.assistantMessageEvent as { type?: string; delta?: string } | undefined;
        if (u?.type !== 'text_delta' || typeof u.delta !== 'string') return;
        if (last && last.kind === 'text') {
          if (last.text.length < MAX_TEXT) entries[entries.length - 1] = { ...last, text: last.text + u.delta };
        } else entries.push({ kind: 'text', text: u.delta });
        break;
      }
      case 'tool_execution_start':
        entries.push({
          kind: 'tool',
          text: toolTitle(str(ev.toolName), obj(ev.args)),
          status: 'running',
          toolCallId: str(ev.toolCallId),
        });
        break;
      case 'tool_execution_end': {
        const i = entries.findIndex((e: ChildEntry) => e.kind === 'tool' && e.toolCallId === ev.toolCallId);
        if (i < 0) return;
        const first = toolOutputText(ev.result).split('\n')[0] ?? '';
        entries[i] = { ...entries[i], status: ev.isError === true ? 'error' : 'done', text: `${entries[i].text} — ${first.slice(0, 200)}` };
        break;
      }
      case 'message_end': {
        const m = ev.message as { role?: string; errorMessage?: string } | undefined;
        if (m?.role === 'assistant' && typeof m.errorMessage === 'string') entries.push({ kind: 'text', text: `✗ ${m.errorMessage}` });
        else return;
        break;
      }
      default:
        return;
    }
    x.child = { ...x.child, entries: entries.slice(-MAX_ENTRIES) };
  });
}
