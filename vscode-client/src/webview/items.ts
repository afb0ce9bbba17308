// Rendering of transcript items. Each item owns one element; `patch` updates it in place when
// the item's rev changed (streaming text re-renders only its last Markdown segment).

import type {
  AssistantItem,
  Features,
  Item,
  NoticeItem,
  PermissionItem,
  QuestionItem,
  ToolItem,
  UserItem,
} from '../model/types';
import { clear, fmtCost, fmtTokens, h } from './dom';
import { splitAttached } from '../mention';
import { renderMarkdown, segments } from './markdown';

export interface Ctx {
  post(msg: Record<string, unknown>): void;
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

export function renderItem(item: Item, ctx: Ctx, prev?: Rendered): Rendered {
  switch (item.kind) {
    case 'user':
      return fresh(item, userEl(item, ctx));
    case 'assistant':
      return assistant(item, ctx, prev);
    case 'tool':
      return fresh(item, toolEl(item, ctx));
    case 'notice':
      return fresh(item, noticeEl(item, ctx));
    case 'permission':
      return fresh(item, permissionEl(item, ctx));
    case 'question':
      return fresh(item, questionEl(item, ctx));
  }
}

function fresh(item: Item, el: HTMLElement): Rendered {
  el.dataset.id = item.id;
  return { el, rev: item.rev };
}

// ----------------------------------------------------------------------------- user

function userEl(u: UserItem, ctx: Ctx): HTMLElement {
  const meta: (HTMLElement | string)[] = [];
  if (u.deliveredAs) {
    meta.push(
      h('span.delivered', { 'data-testid': 'delivered', text: `${u.deliveredAs === 'steer' ? 'steering' : 'follow-up'} → delivered in turn ${u.turn}` }),
    );
  }
  if (u.images) meta.push(h('span.muted', { text: ` · ${u.images} image${u.images === 1 ? '' : 's'}` }));
  const actions = h('div.msg-actions');
  if (u.entryId) {
    if (ctx.features.checkpoints) {
      for (const [mode, label] of [
        ['code', 'Restore code'],
        ['conversation', 'Restore conversation'],
        ['both', 'Restore both'],
      ] as const) {
        actions.append(
          h('button.link', {
            'data-testid': `restore-${mode}`,
            title:
              mode === 'code'
                ? 'Revert the agent’s edits made after this message (your own edits are kept)'
                : mode === 'conversation'
                  ? 'Go back to before this message (a new branch of the session); its text returns to the input'
                  : 'Both: revert the code and go back in the conversation',
            text: label,
            onclick: () => ctx.post({ type: 'restore', entryId: u.entryId, mode }),
          }),
        );
      }
    }
    actions.append(
      h('button.link', {
        'data-testid': 'fork',
        title: 'Start a new session branched at this message',
        text: 'Fork',
        onclick: () => ctx.post({ type: 'fork', entryId: u.entryId }),
      }),
    );
  }
  const { typed, attached } = splitAttached(u.text);
  return h(
    'div.item.user',
    { 'data-testid': 'message-user' },
    h(
      'div.bubble',
      {},
      ...mentionText(typed),
      attached
        ? h('details.attached', {}, h('summary.muted', { text: 'attached context' }), h('pre.attached-text', { text: attached }))
        : null,
    ),
    meta.length ? h('div.meta', {}, ...meta) : null,
    actions.childElementCount ? actions : null,
  );
}

/** Plain text with `@path#L1-2` mentions set apart. */
function mentionText(text: string): Node[] {
  const out: Node[] = [];
  const re = /(^|\s)(@[^\s]+)/g;
  let last = 0;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text))) {
    const start = m.index + m[1].length;
    out.push(document.createTextNode(text.slice(last, start)));
    out.push(h('span.mention', { text: m[2] }));
    last = start + m[2].length;
  }
  out.push(document.createTextNode(text.slice(last)));
  return out;
}

// ----------------------------------------------------------------------------- assistant

function assistant(a: AssistantItem, ctx: Ctx, prev?: Rendered): Rendered {
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

// ----------------------------------------------------------------------------- tool cards

const STATUS_ICON: Record<string, string> = { pending: '○', running: '◌', done: '✓', error: '✗' };

function toolEl(t: ToolItem, ctx: Ctx): HTMLElement {
  const open = ctx.expanded.has(t.id);
  const diffOpen = !ctx.expanded.has(`${t.id}:nodiff`);
  const path = typeof t.args.path === 'string' ? t.args.path : undefined;
  const head = h(
    'div.tool-head',
    { role: 'button', tabindex: 0, 'aria-expanded': String(open), title: 'Show or hide the output', onclick: () => ctx.toggle(t.id) },
    h('span.status', { 'data-status': t.status, text: STATUS_ICON[t.status] ?? '' }),
    h('span.tool-name', { text: t.toolName }),
    h('span.tool-title', { text: t.title.slice(t.toolName.length + 1) || '' }),
    h('span.tool-summary', { 'data-testid': 'tool-summary', text: t.status === 'running' ? 'running…' : t.summary }),
  );
  head.addEventListener('keydown', (e) => {
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      ctx.toggle(t.id);
    }
  });
  const card = h('div.item.tool', { 'data-testid': 'tool-card', 'data-status': t.status, 'data-tool': t.toolName }, head);
  if (t.diff && t.diff.length > 0) {
    const dv = h('div.diff', { 'data-testid': 'tool-diff' });
    if (diffOpen) {
      for (const line of t.diff) {
        dv.append(h(`div.dl.${line.op === '+' ? 'add' : line.op === '-' ? 'del' : 'ctx'}` as 'div', { text: `${line.op} ${line.text}` }));
      }
    }
    card.append(
      h(
        'div.diff-bar',
        {},
        path ? h('button.link', { text: path, title: 'Open the file', onclick: () => ctx.post({ type: 'openFile', uri: pathUri(path) }) }) : null,
        h('button.link', { text: diffOpen ? 'Hide diff' : 'Show diff', onclick: () => ctx.toggle(`${t.id}:nodiff`) }),
      ),
      dv,
    );
  }
  if ((t.toolName === 'edit' || t.toolName === 'write') && t.status === 'done' && ctx.features.checkpoints) {
    card.append(
      h(
        'div.msg-actions',
        {},
        h('button.link', {
          'data-testid': 'revert-tool-call',
          title: 'Revert what this tool call changed (your own edits are kept; undo it from the notice)',
          text: 'Revert this change',
          onclick: () => ctx.post({ type: 'revertToolCall', toolCallId: t.toolCallId }),
        }),
      ),
    );
  }
  if (open) {
    const out = t.output || (t.status === 'running' ? '' : '(no output)');
    card.append(
      h(
        'div.tool-body',
        {},
        h('pre.output', { 'data-testid': 'tool-output', text: out }),
        t.outputCut ? h('div.muted', { text: `${t.outputLines} lines; the middle ${t.outputCut} are not shown.` }) : null,
      ),
    );
  }
  return card;
}

/** Workspace-relative paths are resolved by the host (`openFile` takes a uri or a path). */
function pathUri(p: string): string {
  return p;
}

// ----------------------------------------------------------------------------- notices

function noticeEl(n: NoticeItem, ctx: Ctx): HTMLElement {
  if (n.topic === 'told') {
    // what pi told the model (a review note): muted, one line, the full text behind it
    return h(
      'div.item.notice.told',
      { 'data-testid': 'notice-told' },
      h('details', {}, h('summary', { text: n.text }), h('pre.told-text', { text: n.detail ?? '' })),
    );
  }
  return h(
    `div.item.notice.${n.level}` as 'div',
    { 'data-testid': `notice-${n.topic}` },
    h('span', { text: n.text }),
    n.restoreId
      ? h('button.link', {
          'data-testid': 'undo-restore',
          text: 'Undo restore',
          onclick: () => ctx.post({ type: 'undoRestore', restoreId: n.restoreId }),
        })
      : null,
  );
}

// ----------------------------------------------------------------------------- permissions

const OPTION_TESTID: Record<string, string> = {
  allowOnce: 'permission-allow-once',
  allowSession: 'permission-allow-session',
  allowAlways: 'permission-allow-always',
  deny: 'permission-deny',
};

function permissionEl(p: PermissionItem, ctx: Ctx): HTMLElement {
  const card = h('div.item.permission', { 'data-testid': 'permission-card', 'data-status': p.status });
  card.append(h('div.perm-title', { text: p.title }));
  if (p.detail) card.append(h('pre.perm-detail', { text: p.detail }));
  if (p.status !== 'pending') {
    card.append(h('div.muted', { text: p.status === 'withdrawn' ? 'Withdrawn (the run stopped).' : `Answered: ${p.answer ?? ''}` }));
    return card;
  }
  const reason = h('input.reason', { type: 'text', placeholder: 'Reason for denying (optional, pi reads it)', 'data-testid': 'permission-reason' });
  const buttons = h('div.perm-buttons');
  for (const o of p.options) {
    const isDeny = o.kind === 'deny';
    buttons.append(
      h(`button.${isDeny ? 'secondary' : 'primary'}` as 'button', {
        'data-testid': OPTION_TESTID[o.kind] ?? `permission-${o.id}`,
        text: o.label,
        onclick: () => {
          const msg: Record<string, unknown> = { type: 'permission', requestKey: p.requestKey, optionId: o.id };
          if (isDeny && reason.value.trim()) msg.reason = reason.value.trim();
          ctx.post(msg);
        },
      }),
    );
  }
  card.append(buttons, reason);
  return card;
}

// ----------------------------------------------------------------------------- questions

/** The agent's question (pi/ask): buttons (or checkboxes when several apply) and, when the
 * agent allows it, a text field. A card in the transcript, never a modal. */
function questionEl(q: QuestionItem, ctx: Ctx): HTMLElement {
  const card = h('div.item.question', { 'data-testid': 'question-card', 'data-status': q.status });
  card.append(h('div.question-title', { text: q.question }));
  if (q.status !== 'pending') {
    const done =
      q.status === 'answered'
        ? `Answered: ${q.answer ?? ''}`
        : q.status === 'dismissed'
          ? 'Dismissed.'
          : 'Withdrawn (the run stopped).';
    card.append(h('div.muted', { 'data-testid': 'question-status', text: done }));
    return card;
  }
  const answer = (answers: string[], text?: string) => {
    const msg: Record<string, unknown> = { type: 'answer', requestKey: q.requestKey, answers };
    if (text) msg.text = text;
    ctx.post(msg);
  };
  const field = q.allowFreeText
    ? h('input.question-text', {
        type: 'text',
        placeholder: 'Or type your answer…',
        'data-testid': 'question-text',
      })
    : null;
  const options = h('div.question-options');
  const boxes: HTMLInputElement[] = [];
  q.options.forEach((o, i) => {
    if (q.multiSelect) {
      const box = h('input', { type: 'checkbox', 'data-testid': `question-check-${i}` });
      box.value = o.label;
      boxes.push(box);
      options.append(
        h('label.question-option', {}, box, h('span', { text: o.label }), ...(o.description ? [h('span.muted', { text: ` — ${o.description}` })] : [])),
      );
    } else {
      options.append(
        h('button.secondary.question-option', {
          'data-testid': `question-option-${i}`,
          title: o.description ?? '',
          text: o.description ? `${o.label} — ${o.description}` : o.label,
          onclick: () => answer([o.label], field?.value.trim() || undefined),
        }),
      );
    }
  });
  card.append(options);
  const bar = h('div.question-buttons');
  if (field) {
    card.append(field);
    field.addEventListener('keydown', (e) => {
      if (e.key === 'Enter' && field.value.trim()) {
        e.preventDefault();
        answer(
          boxes.filter((b) => b.checked).map((b) => b.value),
          field.value.trim(),
        );
      }
    });
  }
  if (q.multiSelect || field) {
    bar.append(
      h('button.primary', {
        'data-testid': 'question-submit',
        text: 'Answer',
        onclick: () => {
          const picked = boxes.filter((b) => b.checked).map((b) => b.value);
          const text = field?.value.trim() || undefined;
          if (picked.length > 0 || text) answer(picked, text);
        },
      }),
    );
  }
  bar.append(
    h('button.link', {
      'data-testid': 'question-dismiss',
      text: 'Dismiss',
      title: 'Do not answer (pi is told you dismissed it)',
      onclick: () => ctx.post({ type: 'answer', requestKey: q.requestKey, answers: [], cancelled: true }),
    }),
  );
  card.append(bar);
  return card;
}
