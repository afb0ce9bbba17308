import { type Action, type Effect, initialState, reduce } from '../../src/model/reducer';
import type { ViewModel } from '../../src/model/types';

/** A view model driven by wire events, recording effects. */
export class Driver {
  vm: ViewModel = initialState();
  effects: Effect[] = [];
  seq = 0;
  constructor(readonly sessionId = 'S') {
    this.act({ type: 'loadSession', sessionId, messages: [] });
  }
  act(a: Action): this {
    const r = reduce(this.vm, a);
    this.vm = r.vm;
    this.effects.push(...r.effects);
    return this;
  }
  /** Send events with consecutive seqs. */
  ev(...events: Record<string, unknown>[]): this {
    for (const e of events) this.evAt(++this.seq, e);
    return this;
  }
  evAt(seq: number, event: Record<string, unknown>): this {
    return this.act({ type: 'event', note: { sessionId: this.sessionId, seq, event: event as { type: string } } });
  }
}

export const upd = (type: string, contentIndex: number, extra: Record<string, unknown> = {}) => ({
  type: 'message_update',
  assistantMessageEvent: { type, contentIndex, ...extra },
});

export const userMsg = (text: string) => ({ role: 'user', content: [{ type: 'text', text }] });
export const asstMsg = (content: unknown[], extra: Record<string, unknown> = {}) => ({
  role: 'assistant',
  content,
  stopReason: 'stop',
  ...extra,
});

/** Load a module that imports `vscode` (absent outside the editor) with `vscode` as that import. */
export async function withVscode<T>(vscode: unknown, load: () => Promise<T>): Promise<T> {
  const Module = (await import('node:module')).default as unknown as { _load: (r: string, ...a: unknown[]) => unknown };
  const orig = Module._load;
  Module._load = (request: string, ...rest: unknown[]) => (request === 'vscode' ? vscode : orig(request, ...rest));
  try {
    return await load();
  } finally {
    Module._load = orig;
  }
}
