// The review list above the input: files the agent changed with their hunks still to review,
// Keep / Undo per hunk, per file and for all (pi/reviewDecision through the host).

import { clear, h } from './dom';
import { app, post } from './state';

export const changed = h('div.changed', { 'data-testid': 'changed-files' });
let showChanged = true;

/** What paintChanged shows, for the frame loop's change check. */
export function reviewDeps(): unknown[] {
  return [app.vm.review, showChanged];
}

export function paintChanged(): void {
  clear(changed);
  const files = app.vm.review;
  changed.hidden = files.length === 0;
  if (files.length === 0) return;
  const total = files.reduce((n, f) => n + f.hunks.length, 0);
  const head = h(
    'div.changed-head',
    {},
    h('button.link', { text: `${showChanged ? '▾' : '▸'} Changed files (${files.length}, ${total} change${total === 1 ? '' : 's'} to review)`, onclick: () => ((showChanged = !showChanged), paintChanged()) }),
    h('span.spacer'),
    h('button.link', { 'data-testid': 'keep-all', text: 'Keep all', onclick: () => decideAll('keep') }),
    h('button.link', { 'data-testid': 'undo-all', text: 'Undo all', onclick: () => decideAll('undo') }),
  );
  changed.append(head);
  if (!showChanged) return;
  for (const f of files) {
    let add = 0;
    let del = 0;
    for (const hk of f.hunks) {
      add += hk.newText ? hk.newText.split('\n').length - (hk.newText.endsWith('\n') ? 1 : 0) : 0;
      del += hk.oldText ? hk.oldText.split('\n').length - (hk.oldText.endsWith('\n') ? 1 : 0) : 0;
    }
    const name = decodeURIComponent(f.uri.replace(/^file:\/\//, '')).split('/').slice(-2).join('/');
    const row = h(
      'div.changed-file',
      { 'data-testid': 'changed-file', 'data-uri': f.uri },
      h('button.link.file', { text: name, title: f.uri, onclick: () => post({ type: 'openFile', uri: f.uri }) }),
      h('span.add', { text: `+${add}` }),
      h('span.del', { text: `−${del}` }),
      h('span.spacer'),
      h('button.link', { 'data-testid': 'file-keep', text: 'Keep', onclick: () => post({ type: 'review', decisions: f.hunks.map((x) => ({ hunkId: x.id, decision: 'keep' })) }) }),
      h('button.link', { 'data-testid': 'file-undo', text: 'Undo', onclick: () => post({ type: 'review', decisions: f.hunks.map((x) => ({ hunkId: x.id, decision: 'undo' })) }) }),
    );
    changed.append(row);
    for (const hk of f.hunks) {
      changed.append(
        h(
          'div.hunk-row',
          { 'data-testid': 'hunk', 'data-hunk': hk.id },
          h('button.link', { text: `line ${hk.range.start.line + 1}`, onclick: () => post({ type: 'openHunk', uri: f.uri, hunkId: hk.id }) }),
          h('span.muted.hunk-preview', { text: (hk.newText || hk.oldText).split('\n')[0].slice(0, 60) }),
          h('span.spacer'),
          h('button.link', { 'data-testid': 'hunk-keep', text: 'Keep', onclick: () => post({ type: 'review', decisions: [{ hunkId: hk.id, decision: 'keep' }] }) }),
          h('button.link', { 'data-testid': 'hunk-undo', text: 'Undo', onclick: () => post({ type: 'review', decisions: [{ hunkId: hk.id, decision: 'undo' }] }) }),
        ),
      );
    }
  }
}

function decideAll(decision: 'keep' | 'undo'): void {
  post({ type: 'review', decisions: app.vm.review.flatMap((f) => f.hunks.map((x) => ({ hunkId: x.id, decision }))) });
}
