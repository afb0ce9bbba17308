// What the transcript's renderers share: the context each gets (items.ts dispatches to
// assistant.ts and cards.ts) and what one rendered item keeps. A module of its own so that the
// renderers and their dispatcher do not import each other.

import type { Features } from '../model/types';
import type { WebviewMessage } from '../protocol/messages';

export interface Ctx {
  post(msg: WebviewMessage): void;
  features: Features;
  expanded: Set<string>;
  toggle(id: string): void;
}

export interface Rendered {
  el: HTMLElement;
  rev: number;
  /** Per text block: rendered segment sources. */
  segs?: Map<number, { srcs: string[]; els: HTMLElement[] }>;
  key?: string;
}
