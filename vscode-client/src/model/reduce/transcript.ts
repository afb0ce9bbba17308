// Whole transcripts: a session loaded (or reloaded) from its messages, and session-file entry
// ids (checkpoints / fork points) matched to the user messages shown.

import { initialState, ZERO_USAGE } from '../initial';
import { clipOutput, summariseTool, toolDiff, toolOutputText, toolTitle } from '../tools';
import type { AssistantItem, Item, ToolItem, UserItem } from '../types';
import type { Draft } from './draft';
import { addUsage, contentBlocks, countImages, gluedNote, normUsage, obj, str, told, userText } from './parse';

export function loadSession(d: Draft, sessionId: string, messages: unknown[], entryIds: (string | null)[]): void {
  const keepFeatures = d.vm.features;
  const keepServer = d.vm.server;
  const same = d.vm.sessionId === sessionId;
  const fresh = initialState();
  d.vm = {
    ...fresh,
    // The same session reloaded: what its events already said about the queue, review and
    // pending questions stays (the transcript is what gets replaced).
    ...(same
      ? {
          queue: d.vm.queue,
          review: d.vm.review,
          permissions: d.vm.permissions,
          questions: d.vm.questions,
          mode: d.vm.mode,
          todo: d.vm.todo,
          planReady: d.vm.planReady,
        }
      : {}),
    server: keepServer,
    features: keepFeatures,
    waiting: d.vm.waiting, // held for the server, not part of any session yet
    sessionId,
    nextId: d.vm.nextId,
    rev: d.vm.rev,
    model: d.vm.model,
    thinkingLevel: d.vm.thinkingLevel,
    contextWindow: d.vm.contextWindow,
  };
  const items: Item[] = [];
  const tools = new Map<string, number>();
  let usage = { ...ZERO_USAGE };
  messages.forEach((raw, i) => {
    const m = obj(raw);
    const entryId = entryIds[i] ?? undefined;
    if (m.role === 'user') {
      const glued = gluedNote(d, m.content);
      if (glued) items.push({ ...glued, rev: d.rev });
      const u: UserItem = {
        kind: 'user',
        id: d.newId('u'),
        text: userText(m.content),
        images: countImages(m.content),
        turn: 0,
        rev: d.rev,
      };
      if (entryId) u.entryId = entryId;
      items.push(u);
    } else if (m.role === 'assistant') {
      const mu = normUsage(m.usage);
      if (mu) {
        usage = addUsage(usage, mu);
        const used = mu.input + mu.cacheRead + mu.cacheWrite + mu.output;
        if (used > 0) d.vm.contextTokens = used;
      }
      const a: AssistantItem = {
        kind: 'assistant',
        id: d.newId('a'),
        blocks: contentBlocks(m.content),
        streaming: false,
        stopReason: typeof m.stopReason === 'string' ? m.stopReason : undefined,
        errorMessage: typeof m.errorMessage === 'string' ? m.errorMessage : undefined,
        usage: mu ?? undefined,
        model: typeof m.model === 'string' ? m.model : undefined,
        turn: 0,
        rev: d.rev,
      };
      items.push(a);
      for (const c of Array.isArray(m.content) ? m.content : []) {
        const b = obj(c);
        if (b.type !== 'toolCall') continue;
        const args = obj(b.arguments);
        const t: ToolItem = {
          kind: 'tool',
          id: `t:${str(b.id)}`,
          toolCallId: str(b.id),
          toolName: str(b.name),
          args,
          title: toolTitle(str(b.name), args),
          status: 'pending',
          summary: '',
          output: '',
          outputLines: 0,
          outputCut: 0,
          turn: 0,
          rev: d.rev,
        };
        tools.set(t.toolCallId, items.length);
        items.push(t);
      }
    } else if (m.role === 'toolResult') {
      const at = tools.get(str(m.toolCallId));
      if (at === undefined) return;
      const t = items[at] as ToolItem;
      const text = toolOutputText(m);
      const isError = m.isError === true;
      items[at] = {
        ...t,
        ...clipOutput(text),
        status: isError ? 'error' : 'done',
        summary: summariseTool(t.toolName, t.args, text, isError),
        diff: isError ? undefined : toolDiff(t.toolName, t.args, m),
      };
    } else if (m.role === 'custom') {
      const t = told(d, m);
      if (t) items.push({ ...t, rev: d.rev });
    } else if (m.role === 'compactionSummary' || m.role === 'branchSummary') {
      items.push({
        kind: 'notice',
        id: d.newId('n'),
        level: 'info',
        topic: 'compaction',
        text: m.role === 'compactionSummary' ? 'Earlier conversation summarised.' : 'Branch summary.',
        rev: d.rev,
      });
    }
  });
  // Questions still waiting for an answer stay answerable after the reload.
  for (const p of d.vm.permissions) items.push({ ...p, rev: d.rev });
  for (const q of d.vm.questions) items.push({ ...q, rev: d.rev });
  d.vm.items = items;
  d.vm.usage = usage;
}

/** Give user items without an entry id the next matching one, in order (one per user message). */
export function assignEntryIds(d: Draft, checkpoints: { entryId: string; text: string }[]): void {
  const users = d.vm.items.filter((it): it is UserItem => it.kind === 'user');
  const byId = new Set(users.map((u) => u.entryId).filter(Boolean));
  const free = checkpoints.filter((c) => !byId.has(c.entryId));
  let ci = 0;
  for (const u of users) {
    if (u.entryId) continue;
    // The checkpoint may hold the typed text only, the message the attachments too.
    const same = (c: string) => {
      const a = c.trim();
      const b = u.text.trim();
      return a === b || (a.length > 0 && b.startsWith(a)) || (b.length > 0 && a.startsWith(b));
    };
    while (ci < free.length && !same(free[ci].text)) ci++;
    if (ci >= free.length) break;
    const entryId = free[ci].entryId;
    d.update<UserItem>(u.id, (x) => {
      x.entryId = entryId;
    });
    ci++;
  }
}
