// Rendering of transcript items. Each item owns one element; `renderItem` re-renders it when
// the item's rev changed. Assistant messages are patched in place (assistant.ts); tool,
// notice, permission and question cards are rebuilt (cards.ts).

import type { Item, UserItem } from '../model/types';
import { splitAttached } from '../mention';
import { assistant } from './assistant';
import { noticeEl, permissionEl, questionEl, toolEl } from './cards';
import type { Ctx, Rendered } from './ctx';
import { h } from './dom';

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
  const entryId = u.entryId;
  if (entryId) {
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
            onclick: () => ctx.post({ type: 'restore', entryId, mode }),
          }),
        );
      }
    }
    actions.append(
      h('button.link', {
        'data-testid': 'fork',
        title: 'Start a new session branched at this message',
        text: 'Fork',
        onclick: () => ctx.post({ type: 'fork', entryId }),
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
