// Cards in the transcript: tool calls (status, summary, diff, output on demand, revert),
// notices (incl. the muted "pi was told" marker), permission prompts and the agent's questions.

import type { NoticeItem, PermissionItem, QuestionItem, ToolItem } from '../model/types';
import type { WebviewMessage } from '../protocol/messages';
import { h } from './dom';
import type { Ctx } from './ctx';

const STATUS_ICON: Record<string, string> = { pending: '○', running: '◌', done: '✓', error: '✗' };

export function toolEl(t: ToolItem, ctx: Ctx): HTMLElement {
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
  if (t.child) card.append(childEl(t, ctx));
  return card;
}

const CHILD_ICON: Record<string, string> = { queued: '…', running: '◌', completed: '✓', failed: '✗', cancelled: '⏹', disconnected: '⚠' };

/** A `task` card's child agent: its state and usage, a stop button while it runs, and — when the
 * card is expanded — its live transcript (text and tool calls). */
function childEl(t: ToolItem, ctx: Ctx): HTMLElement {
  const c = t.child!;
  const u = c.usage;
  const usage = u ? ` · ${u.turns ?? 0} turns · ${u.input ?? 0}/${u.output ?? 0} tokens · $${(u.cost ?? 0).toFixed(4)}` : '';
  const running = c.state === 'running' || c.state === 'queued';
  const box = h(
    'div.child',
    { 'data-testid': 'child', 'data-state': c.state, 'data-child': c.id },
    h(
      'div.child-head',
      {},
      h('span.status', { text: CHILD_ICON[c.state] ?? '' }),
      h('span.child-agent', { text: `[${c.agent}] ` }),
      h('span.child-state', { 'data-testid': 'child-state', text: `${c.state}${usage}` }),
      running
        ? h('button.link', {
            'data-testid': 'child-stop',
            title: 'Stop this subagent (the run goes on)',
            text: 'Stop',
            onclick: () => ctx.post({ type: 'stopChild', childSessionId: c.id }),
          })
        : null,
    ),
  );
  if (ctx.expanded.has(t.id)) {
    const list = h('div.child-transcript', { 'data-testid': 'child-transcript' });
    for (const e of c.entries) {
      list.append(
        e.kind === 'tool'
          ? h('div.child-tool', { 'data-status': e.status ?? '', text: `${STATUS_ICON[e.status ?? 'running'] ?? ''} ${e.text}` })
          : h('div.child-text', { text: e.text }),
      );
    }
    box.append(list);
  }
  return box;
}

/** Workspace-relative paths are resolved by the host (`openFile` takes a uri or a path). */
function pathUri(p: string): string {
  return p;
}

// ----------------------------------------------------------------------------- notices

export function noticeEl(n: NoticeItem, ctx: Ctx): HTMLElement {
  if (n.topic === 'told') {
    // what pi told the model (a review note): muted, one line, the full text behind it
    return h(
      'div.item.notice.told',
      { 'data-testid': 'notice-told' },
      h('details', {}, h('summary', { text: n.text }), h('pre.told-text', { text: n.detail ?? '' })),
    );
  }
  const restoreId = n.restoreId;
  return h(
    `div.item.notice.${n.level}` as 'div',
    { 'data-testid': `notice-${n.topic}` },
    h('span', { text: n.text }),
    restoreId
      ? h('button.link', {
          'data-testid': 'undo-restore',
          text: 'Undo restore',
          onclick: () => ctx.post({ type: 'undoRestore', restoreId }),
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

export function permissionEl(p: PermissionItem, ctx: Ctx): HTMLElement {
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
          const msg: Extract<WebviewMessage, { type: 'permission' }> = { type: 'permission', requestKey: p.requestKey, optionId: o.id };
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
export function questionEl(q: QuestionItem, ctx: Ctx): HTMLElement {
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
    const msg: Extract<WebviewMessage, { type: 'answer' }> = { type: 'answer', requestKey: q.requestKey, answers };
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
