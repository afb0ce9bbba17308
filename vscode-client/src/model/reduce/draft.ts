// One reduction in progress: a mutable copy of the view model that copies the items array
// lazily and stamps every changed item with the new revision.

import type { AssistantItem, Item, ViewModel } from '../types';
import type { Effect, Result } from './actions';

/** A mutable draft of one reduction: copies the items array lazily, stamps changed items. */
export class Draft {
  vm: ViewModel;
  effects: Effect[] = [];
  private itemsCopied = false;
  private index: Map<string, number> | null = null;

  constructor(prev: ViewModel) {
    this.vm = { ...prev, rev: prev.rev + 1 };
  }

  get rev(): number {
    return this.vm.rev;
  }

  newId(prefix: string): string {
    const id = `${prefix}${this.vm.nextId}`;
    this.vm.nextId += 1;
    return id;
  }

  private items(): Item[] {
    if (!this.itemsCopied) {
      this.vm.items = this.vm.items.slice();
      this.itemsCopied = true;
    }
    return this.vm.items;
  }

  push(item: Item): void {
    item.rev = this.rev;
    this.items().push(item);
    this.index?.set(item.id, this.vm.items.length - 1);
  }

  find(id: string): number {
    if (!this.index) {
      // Most lookups hit the newest items: search backwards before building an index.
      const items = this.vm.items;
      for (let i = items.length - 1, n = 0; i >= 0 && n < 64; i--, n++) {
        if (items[i].id === id) return i;
      }
      this.index = new Map(items.map((it, i) => [it.id, i]));
    }
    return this.index.get(id) ?? -1;
  }

  get<T extends Item>(id: string): T | undefined {
    const i = this.find(id);
    return i < 0 ? undefined : (this.vm.items[i] as T);
  }

  /** Replace item `id` by `fn(copy)`. */
  update<T extends Item>(id: string, fn: (it: T) => void): T | undefined {
    const i = this.find(id);
    if (i < 0) return undefined;
    const copy = { ...(this.vm.items[i] as T) };
    fn(copy);
    copy.rev = this.rev;
    this.items()[i] = copy;
    return copy;
  }

  lastStreamingAssistant(): AssistantItem | undefined {
    const items = this.vm.items;
    for (let i = items.length - 1; i >= 0; i--) {
      const it = items[i];
      if (it.kind === 'assistant') return it.streaming ? it : undefined;
      if (it.kind === 'user') return undefined;
    }
    return undefined;
  }

  result(): Result {
    return { vm: this.vm, effects: this.effects };
  }
}
