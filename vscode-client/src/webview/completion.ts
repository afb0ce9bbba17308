// The completion list under the input: `/` commands (from the panel) and `@` mentions of files
// and workspace symbols (the host answers `completeFiles` with `files`, then — debounced — with
// `symbols`; ./mentionItems orders them). Arrow keys move, Enter / Tab pick, Escape closes.

import { mentionQueryAt } from '../mention';
import type { SymbolChoice } from '../protocol/messages';
import { clear, h } from './dom';
import { keptSymbols, kindBadge, type MentionItem, mentionItems } from './mentionItems';
import { type SlashItem, slashItems, slashLabel, typingCommand } from './commands';
import { resources } from './context';
import { SLASH } from './slash';
import { post } from './state';

export class Completion {
  readonly el = h('div.completion', { role: 'listbox', hidden: true });
  private items: string[] = [];
  /** The `@` rows (files and symbols) behind `items` (their `insert` texts). */
  private mentions: MentionItem[] = [];
  private files: string[] = [];
  private symbols: SymbolChoice[] = [];
  private query = '';
  private index = 0;
  private req = 0;
  private start = -1;
  private slash = false;
  private commands: SlashItem[] = [];

  constructor(
    private readonly input: HTMLTextAreaElement,
    private readonly changed: () => void,
  ) {}

  /** Keys while the list is open; true when the key was the list's. */
  key(e: KeyboardEvent): boolean {
    if (this.el.hidden) return false;
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      this.index = (this.index + (e.key === 'ArrowDown' ? 1 : -1) + this.items.length) % this.items.length;
      this.paint();
      return true;
    }
    if ((e.key === 'Enter' || e.key === 'Tab') && this.items.length > 0) {
      e.preventDefault();
      this.pick(this.items[this.index]);
      return true;
    }
    if (e.key === 'Escape') {
      e.preventDefault();
      this.hide();
      return true;
    }
    return false;
  }

  /** The input's text changed: offer commands, ask the host for files, or close. */
  update(): void {
    const input = this.input;
    if (typingCommand(input.value)) {
      this.start = 0;
      this.req += 1;
      this.commands = slashItems(input.value, SLASH, resources.commands);
      this.show(this.req, this.commands.map((c) => c.name), true);
      return;
    }
    const q = mentionQueryAt(input.value, input.selectionStart ?? input.value.length);
    if (!q) {
      this.hide();
      return;
    }
    this.start = q.start;
    this.req += 1;
    this.symbols = keptSymbols(this.query, q.query, this.symbols);
    this.query = q.query;
    post({ type: 'completeFiles', query: q.query, requestId: this.req });
  }

  /** The host's answer to `completeFiles`, or the slash commands (stale answers are dropped). */
  show(requestId: number, files: string[], isSlash = false): void {
    if (requestId !== this.req) return;
    this.slash = isSlash;
    if (isSlash) {
      this.items = files;
      this.index = 0;
      this.el.hidden = files.length === 0;
      this.paint();
      return;
    }
    this.files = files;
    this.refresh(true);
  }

  /** The host's (debounced) symbols for the query of `requestId`; dropped when stale. */
  showSymbols(requestId: number, symbols: SymbolChoice[]): void {
    if (requestId !== this.req || this.slash) return;
    this.symbols = symbols;
    this.refresh(false);
  }

  hide(): void {
    this.req += 1; // an answer still on the way (the debounced symbols) must not reopen the list
    this.el.hidden = true;
    this.items = [];
    this.mentions = [];
    this.symbols = [];
    this.query = '';
  }

  private refresh(resetIndex: boolean): void {
    const current = this.mentions[this.index]?.insert;
    this.mentions = mentionItems(this.query, this.files, this.symbols);
    this.items = this.mentions.map((m) => m.insert);
    // the row under the cursor stays selected when the symbols arrive below it
    const kept = current === undefined || resetIndex ? -1 : this.items.indexOf(current);
    this.index = kept >= 0 ? kept : 0;
    this.el.hidden = this.items.length === 0;
    this.paint();
  }

  private paint(): void {
    clear(this.el);
    this.items.forEach((f, i) => {
      const m = this.slash ? undefined : this.mentions[i];
      const props = {
        'data-testid': 'completion-item',
        role: 'option',
        'aria-selected': String(i === this.index),
        onmousedown: (ev: Event) => {
          ev.preventDefault();
          this.pick(f);
        },
      };
      if (m?.type === 'symbol') {
        const where = m.container ? `${m.container} · ${m.path}` : m.path;
        this.el.append(
          h('div.completion-item.completion-symbol', { ...props, 'data-kind': m.kind, title: `${m.kind} ${m.name} — ${m.insert}` }, [
            h('span.completion-kind', { text: kindBadge(m.kind), 'data-kind': m.kind }),
            h('span.completion-name', { text: m.name }),
            h('span.completion-detail', { text: where }),
          ]),
        );
        return;
      }
      this.el.append(h('div.completion-item', { ...props, text: this.slash ? this.label(f) : f }));
    });
    this.el.querySelector('[aria-selected=true]')?.scrollIntoView({ block: 'nearest' });
  }

  private label(name: string): string {
    const item = this.commands.find((c) => c.name === name);
    return item ? slashLabel(item) : name;
  }

  private pick(file: string): void {
    const input = this.input;
    const cursor = input.selectionStart ?? input.value.length;
    const before = input.value.slice(0, this.start);
    const after = input.value.slice(cursor);
    const ins = this.slash ? `${file} ` : `@${file} `;
    input.value = before + ins + after;
    const pos = before.length + ins.length;
    input.setSelectionRange(pos, pos);
    this.hide();
    this.changed();
  }
}
