// The panel's Context section (docs/context.md): what the current session loaded — the
// context files (AGENTS.md, CLAUDE.md), the system prompt files, the skills and the prompt
// templates, each openable — with the project's trust status, what trust left out, the
// loader's diagnostics, and a Reload button (`pi/reload`). Folded to one line by default;
// `/context` opens it. The host sends it as the `resources` message.

import type { CommandInfo, ContextResult } from '../protocol/generated';
import { clear, h } from './dom';
import { post } from './state';

export const contextEl = h('div.context', { 'data-testid': 'context', hidden: true });
export const resources: { commands: CommandInfo[]; context: ContextResult | null; open: boolean } = {
  commands: [],
  context: null,
  open: false,
};

/** `/context`: open (and show) the section. */
export function openContext(): void {
  resources.open = true;
  paintContext();
  contextEl.scrollIntoView?.({ block: 'nearest' });
}

function fileButton(path: string, label: string, title?: string): HTMLElement {
  return h('button.link.file', { 'data-testid': 'context-file', 'data-path': path, text: label, title: title ?? path, onclick: () => post({ type: 'openFile', uri: path }) });
}

function summary(c: ContextResult): string {
  const n = (k: number, one: string) => `${k} ${one}${k === 1 ? '' : 's'}`;
  const parts = [n(c.contextFiles.length, 'file'), n(c.skills.length, 'skill'), n(c.templates.length, 'template')];
  if (c.trust.status === 'untrusted') parts.push('project not trusted');
  if (c.diagnostics.length) parts.push(n(c.diagnostics.length, 'problem'));
  return parts.join(', ');
}

export function paintContext(): void {
  clear(contextEl);
  const c = resources.context;
  contextEl.hidden = c === null;
  if (c === null) return;
  contextEl.append(
    h(
      'div.context-head',
      {},
      h('button.link', { 'data-testid': 'context-toggle', text: `${resources.open ? '▾' : '▸'} Context (${summary(c)})`, onclick: () => ((resources.open = !resources.open), paintContext()) }),
      h('span.spacer'),
      h('button.link', { 'data-testid': 'context-reload', text: 'Reload', title: 'Load the context files, skills and templates again', onclick: () => post({ type: 'reloadContext' }) }),
    ),
  );
  if (!resources.open) return;
  const section = (title: string, rows: HTMLElement[]) => {
    contextEl.append(h('div.context-title', { text: title }));
    if (rows.length === 0) contextEl.append(h('div.muted.context-row', { text: 'none' }));
    for (const r of rows) contextEl.append(r);
  };
  section(
    'Context files',
    c.contextFiles.map((f) => h('div.context-row', {}, fileButton(f.path, f.path), h('span.muted', { text: ` ${f.scope}, ${f.bytes} bytes${f.truncated ? ', truncated' : ''}` }))),
  );
  const prompts = [c.systemPrompt, ...c.appendSystemPrompt].filter((p): p is NonNullable<typeof p> => !!p && !!p.path);
  if (prompts.length) section('System prompt', prompts.map((p) => h('div.context-row', {}, fileButton(p.path as string, p.path as string))));
  section(
    'Skills',
    c.skills.map((s) => h('div.context-row', {}, fileButton(s.path, s.name), h('span.muted', { text: ` — ${s.description}` }))),
  );
  section(
    'Prompt templates',
    c.templates.map((t) => h('div.context-row', {}, fileButton(t.path, `/${t.name}`), h('span.muted', { text: ` — ${t.description}` }))),
  );
  const trust = c.trust.status === 'untrusted' ? 'not trusted: its own files were not loaded' : c.trust.status === 'trusted' ? 'trusted' : 'nothing needs trust';
  contextEl.append(h('div.context-row', { 'data-testid': 'context-trust', text: `Project: ${trust}` }));
  for (const p of c.trust.ignoredPaths ?? []) contextEl.append(h('div.context-row.muted', {}, 'not loaded: ', fileButton(p, p)));
  for (const d of c.diagnostics) {
    contextEl.append(h('div.context-row.context-diag', { 'data-testid': 'context-diagnostic' }, `${d.type}: ${d.message} `, d.path ? fileButton(d.path, d.path) : null));
  }
}
