// The `/` completion's entries: the panel's own commands (slash.ts) first, then what the
// server offers (`pi/commands`: prompt templates and skills, docs/context.md) — each with its
// description and argument hint. The server's own commands (`compact`, `context`, `reload`)
// are the panel's commands of the same name. Pure (unit-tested).

import type { CommandInfo } from '../protocol/generated';

export interface SlashItem {
  /** With the slash: `/review`, `/skill:release`. */
  name: string;
  description: string;
  hint?: string;
  source: 'panel' | 'prompt' | 'skill';
}

/** The entries whose name starts with `typed` (the input so far, `/` included). */
export function slashItems(typed: string, panel: Record<string, string>, server: readonly CommandInfo[]): SlashItem[] {
  const items: SlashItem[] = Object.entries(panel).map(([name, description]) => ({ name, description, source: 'panel' }));
  const known = new Set(items.map((i) => i.name));
  for (const c of server) {
    const name = `/${c.name}`;
    if (c.source === 'builtin' || known.has(name)) continue;
    known.add(name);
    items.push({ name, description: c.description, hint: c.argumentHint ?? undefined, source: c.source });
  }
  return items.filter((i) => i.name.startsWith(typed));
}

/** One line of the list: `/review <FILE> — Review a change`. */
export function slashLabel(item: SlashItem): string {
  const hint = item.hint ? ` <${item.hint}>` : '';
  return `${item.name}${hint} — ${item.description}`;
}

/** Whether the input so far is a command name being typed (completion shows then). */
export function typingCommand(text: string): boolean {
  return /^\/[\w:.-]*$/.test(text);
}
