// An assistant message, patched in place while it streams: one child per content block, and
// text blocks split into Markdown segments of which only changed ones are re-rendered.

import type { AssistantItem } from '../model/types';
import { clear, fmtCost, fmtTokens, h } from './dom';
import type { Ctx, Rendered } from './ctx';
import { renderMarkdown, segments } from './markdown';

export function assistant(a: AssistantItem, ctx: Ctx, prev?: Rendered): Rendered {
  const r: Rendered = prev && prev.key === 'assistant' ? prev : { el: h('div.item.assistant', { 'data-testid': 'message-assistant' }), rev: 0, segs: new Map(), key: 'assistant' };
  const el = r.el;
  el.dataset.id = a.id;
  el.dataset.streaming = String(a.streaming);
  if (a.stopReason) el.dataset.stopReason = a.stopReason;
  // Blocks: keep one child per content index.
  let body = el.querySelector(':scope > .blocks');
  if (!body) {
    body = h('div.blocks');
    el.prepend(body);
  }
  a.blocks.forEach((b, i) => {
    let bel = body.children[i] as HTMLElement | undefined;
    const kind = b.type;
    if (!bel || bel.dataset.kind !== kind) {
      const nb = kind === 'thinking' ? thinkingEl(ctx, a.id, i) : kind === 'text' ? h('div.text.markdown') : h('div.toolref');
      nb.dataset.kind = kind;
      if (bel) bel.replaceWith(nb);
      else body.append(nb);
      bel = nb;
      r.segs!.delete(i);
    }
    if (b.type === 'text') patchMarkdown(r, i, bel, b.text);
    else if (b.type === 'thinking') {
      const summary = bel.querySelector('summary') as HTMLElement;
      summary.textContent = a.streaming && i === a.blocks.length - 1 ? 'Thinking…' : `Thinking (${fmtTokens(Math.ceil(b.text.length / 4))} tokens)`;
      const content = bel.querySelector('.thinking-text') as HTMLElement;
      if ((bel as HTMLDetailsElement).open) patchMarkdown(r, i, content, b.text);
    }
  });
  while (body.children.length > a.blocks.length) body.lastElementChild!.remove();
  // Footer: usage per turn, stop reason, errors.
  el.querySelector(':scope > .footer')?.remove();
  el.querySelector(':scope > .error')?.remove();
  if (a.stopReason === 'error' && a.errorMessage) {
    el.append(h('div.error', { 'data-testid': 'assistant-error', text: a.errorMessage }));
  }
  if (!a.streaming) {
    const parts: string[] = [];
    if (a.turn) parts.push(`turn ${a.turn}`);
    if (a.stopReason === 'aborted') parts.push('stopped');
    if (a.stopReason === 'length') parts.push('cut at the output limit');
    if (a.usage && a.usage.input + a.usage.output + a.usage.cacheRead > 0) {
      parts.push(`${fmtTokens(a.usage.input + a.usage.cacheRead + a.usage.cacheWrite)} in · ${fmtTokens(a.usage.output)} out`);
      if (a.usage.cost > 0) parts.push(fmtCost(a.usage.cost));
    }
    if (parts.length) el.append(h('div.footer.muted', { 'data-testid': 'turn-usage', text: parts.join(' · ') }));
  }
  r.rev = a.rev;
  return r;
}

function thinkingEl(ctx: Ctx, id: string, index: number): HTMLElement {
  const key = `${id}:think:${index}`;
  const det = h('details.thinking', { 'data-testid': 'thinking' }, h('summary', { text: 'Thinking' }), h('div.thinking-text.markdown'));
  if (ctx.expanded.has(key)) det.open = true;
  det.addEventListener('toggle', () => {
    if (det.open !== ctx.expanded.has(key)) ctx.toggle(key);
  });
  return det;
}

function patchMarkdown(r: Rendered, index: number, container: HTMLElement, text: string): void {
  const segs = segments(text);
  let st = r.segs!.get(index);
  if (!st || st.els.some((e) => e.parentElement !== container)) {
    clear(container);
    st = { srcs: [], els: [] };
    r.segs!.set(index, st);
  }
  for (let i = 0; i < segs.length; i++) {
    if (st.srcs[i] === segs[i]) continue;
    const el = h('div.seg');
    el.innerHTML = renderMarkdown(segs[i]); // sanitised by DOMPurify
    addCopyButtons(el);
    if (st.els[i]) st.els[i].replaceWith(el);
    else container.append(el);
    st.els[i] = el;
    st.srcs[i] = segs[i];
  }
  while (st.els.length > segs.length) {
    st.els.pop()!.remove();
    st.srcs.pop();
  }
}

function addCopyButtons(el: HTMLElement): void {
  for (const pre of Array.from(el.querySelectorAll('pre.code'))) {
    pre.append(h('button.copy', { title: 'Copy', 'data-copy': '1', text: 'Copy' }));
  }
}
