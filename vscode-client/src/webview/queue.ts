// The visible queue (§7): steering and follow-up messages waiting for delivery, each editable,
// removable, and a follow-up promotable to steering.

import { clear, h } from './dom';
import { app, post } from './state';

export const queueEl = h('div.queue', { 'data-testid': 'queue' });

export function paintQueue(): void {
  clear(queueEl);
  const q = app.vm.queue;
  const entries = [
    ...q.steering.map((e) => ({ ...e, kind: 'steer' as const })),
    ...q.followUp.map((e) => ({ ...e, kind: 'followUp' as const })),
  ];
  queueEl.hidden = entries.length === 0;
  if (entries.length === 0) return;
  queueEl.append(h('div.queue-head.muted', { text: `Queued (${entries.length}) — delivered ${app.vm.isStreaming ? 'during this run' : 'with the next run'}` }));
  for (const e of entries) {
    const local = e.id.startsWith('local:');
    const row = h('div.queue-row', { 'data-testid': 'queue-item', 'data-kind': e.kind });
    row.append(h('span.queue-kind', { text: e.kind === 'steer' ? 'steer' : 'follow-up' }), h('span.queue-text', { text: e.text }));
    if (!local && app.vm.features.queue) {
      row.append(
        h('button.link', {
          'data-testid': 'queue-edit',
          text: 'Edit',
          onclick: () => {
            const ta = h('textarea.queue-edit', { rows: 2 });
            ta.value = e.text;
            const save = h('button.link', { text: 'Save', onclick: () => post({ type: 'queue', op: 'edit', id: e.id, text: ta.value }) });
            row.replaceChildren(ta, save, h('button.link', { text: 'Cancel', onclick: () => paintQueue() }));
            ta.focus();
          },
        }),
        ...(e.kind === 'followUp'
          ? [h('button.link', { 'data-testid': 'queue-send-now', text: 'Send now', title: 'Deliver at the next turn boundary (as steering)', onclick: () => post({ type: 'queue', op: 'promote', id: e.id }) })]
          : []),
        h('button.link', { 'data-testid': 'queue-remove', text: 'Delete', onclick: () => post({ type: 'queue', op: 'remove', id: e.id }) }),
      );
    }
    queueEl.append(row);
  }
}
