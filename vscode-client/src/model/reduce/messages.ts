// The transcript as it streams: message_start / message_update / message_end build user and
// assistant items; tool calls get their card as soon as the model names them.

import type { MessageEndEvent, MessageStartEvent, MessageUpdateEvent } from '../../protocol/generated';
import type { AssistantItem, ToolItem, UserItem } from '../types';
import { toolTitle } from '../tools';
import type { Draft } from './draft';
import { addUsage, contentBlocks, countImages, gluedNote, normUsage, notice, num, obj, str, told, userText } from './parse';

export function messageStart(d: Draft, ev: MessageStartEvent): void {
  const m = obj(ev.message);
  const role = m.role;
  if (role === 'user') {
    const glued = gluedNote(d, m.content);
    if (glued) d.push(glued);
    const text = userText(m.content);
    const deliveredAs = ev.deliveredAs === 'steer' || ev.deliveredAs === 'followUp' ? ev.deliveredAs : undefined;
    const queuedId = typeof ev.queuedId === 'string' ? ev.queuedId : undefined;
    const item: UserItem = {
      kind: 'user',
      id: d.newId('u'),
      text,
      images: countImages(m.content),
      turn: d.vm.turn,
      rev: 0,
    };
    if (deliveredAs) item.deliveredAs = deliveredAs;
    if (queuedId) item.queuedId = queuedId;
    // An optimistic local queue entry (server without queue_update) is now delivered.
    const q = d.vm.queue;
    const local = (e: { id: string; text: string }) => e.id.startsWith('local:') && e.text === text;
    const inSteer = q.steering.findIndex(local);
    const inFollow = q.followUp.findIndex(local);
    if (inSteer >= 0 || inFollow >= 0) {
      if (!item.deliveredAs && d.vm.turn > 1) item.deliveredAs = inSteer >= 0 ? 'steer' : 'followUp';
      d.vm.queue = {
        steering: inSteer >= 0 ? q.steering.filter((_, i) => i !== inSteer) : q.steering,
        followUp: inSteer < 0 && inFollow >= 0 ? q.followUp.filter((_, i) => i !== inFollow) : q.followUp,
      };
    }
    d.push(item);
  } else if (role === 'assistant') {
    d.push({
      kind: 'assistant',
      id: d.newId('a'),
      blocks: contentBlocks(m.content),
      streaming: true,
      model: typeof m.model === 'string' ? m.model : undefined,
      turn: d.vm.turn,
      rev: 0,
    });
  } else if (role === 'compactionSummary' || role === 'branchSummary') {
    d.push(notice(d, 'info', 'compaction', role === 'compactionSummary' ? 'Earlier conversation summarised.' : 'Branch summary.'));
  } else if (role === 'custom') {
    const t = told(d, m);
    if (t) d.push(t);
  }
}

export function messageUpdate(d: Draft, ev: MessageUpdateEvent): void {
  const a = d.lastStreamingAssistant();
  if (!a) return;
  const u = ev.assistantMessageEvent;
  const ci = num(u.contentIndex) ?? 0;
  const delta = 'delta' in u && typeof u.delta === 'string' ? u.delta : '';
  let toolCall: Record<string, unknown> | null = null;
  d.update<AssistantItem>(a.id, (x) => {
    const blocks = x.blocks.slice();
    const at = blocks[ci];
    switch (u.type) {
      case 'text_start':
        blocks[ci] = { type: 'text', text: '' };
        break;
      case 'text_delta':
        blocks[ci] = { type: 'text', text: (at && at.type === 'text' ? at.text : '') + delta };
        break;
      case 'thinking_start':
        blocks[ci] = { type: 'thinking', text: '' };
        break;
      case 'thinking_delta':
        blocks[ci] = { type: 'thinking', text: (at && at.type === 'thinking' ? at.text : '') + delta };
        break;
      case 'toolcall_start':
        blocks[ci] = { type: 'toolCall', toolCallId: '', name: '' };
        break;
      case 'toolcall_end': {
        const tc = obj(u.toolCall);
        toolCall = tc;
        blocks[ci] = { type: 'toolCall', toolCallId: str(tc.id), name: str(tc.name) };
        break;
      }
      default:
        break;
    }
    for (let i = 0; i < blocks.length; i++) if (!blocks[i]) blocks[i] = { type: 'text', text: '' };
    x.blocks = blocks;
  });
  if (toolCall) {
    const tc = toolCall as Record<string, unknown>;
    if (str(tc.id)) ensureTool(d, str(tc.id), str(tc.name), obj(tc.arguments));
  }
}

export function messageEnd(d: Draft, ev: MessageEndEvent): void {
  const m = obj(ev.message);
  if (m.role !== 'assistant') return;
  let a = d.lastStreamingAssistant();
  if (!a) {
    // message_end without its start (joined mid-stream): show it whole.
    messageStart(d, { type: 'message_start', message: m });
    a = d.lastStreamingAssistant();
    if (!a) return;
  }
  const blocks = contentBlocks(m.content);
  const streamed = Array.isArray(m.content) ? m.content.map((c) => obj(c).streamed === true) : [];
  const usage = normUsage(m.usage);
  d.update<AssistantItem>(a.id, (x) => {
    // compactEvents: a `streamed` block's text came with the deltas; keep what we built.
    const final = blocks.map((b, i) => (streamed[i] && x.blocks[i] ? x.blocks[i] : b));
    if (final.length > 0 || x.blocks.length === 0) x.blocks = final;
    x.streaming = false;
    if (typeof m.stopReason === 'string') x.stopReason = m.stopReason;
    if (typeof m.errorMessage === 'string') x.errorMessage = m.errorMessage;
    if (usage) x.usage = usage;
    if (typeof m.model === 'string') x.model = m.model;
  });
  if (usage) {
    d.vm.usage = addUsage(d.vm.usage, usage);
    // The context meter until pi/state reports its own estimate: what this call used.
    const used = usage.input + usage.cacheRead + usage.cacheWrite + usage.output;
    if (used > 0) d.vm.contextTokens = used;
  }
  for (const b of blocks) {
    if (b.type === 'toolCall' && b.toolCallId) {
      const call = (Array.isArray(m.content) ? (m.content as unknown[]) : []).find(
        (c) => obj(c).type === 'toolCall' && obj(c).id === b.toolCallId,
      );
      ensureTool(d, b.toolCallId, b.name, obj(obj(call).arguments));
    }
  }
}

export function ensureTool(d: Draft, toolCallId: string, toolName: string, args: Record<string, unknown>): ToolItem {
  const id = `t:${toolCallId}`;
  const existing = d.get<ToolItem>(id);
  if (existing) {
    if (Object.keys(existing.args).length === 0 && Object.keys(args).length > 0) {
      return d.update<ToolItem>(id, (x) => {
        x.args = args;
        x.title = toolTitle(x.toolName || toolName, args);
      }) as ToolItem;
    }
    return existing;
  }
  const item: ToolItem = {
    kind: 'tool',
    id,
    toolCallId,
    toolName,
    args,
    title: toolTitle(toolName, args),
    status: 'pending',
    summary: '',
    output: '',
    outputLines: 0,
    outputCut: 0,
    turn: d.vm.turn,
    rev: 0,
  };
  d.push(item);
  return item;
}
