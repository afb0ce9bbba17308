// The session browser: an overlay listing the workspace's sessions (pi/sessions), with a
// search field; picking one resumes it.

import type { SessionRow } from '../protocol/messages';
import { clear, h, relTime } from './dom';
import { app, post } from './state';

export const overlay = h('div.overlay', { 'data-testid': 'sessions', hidden: true });
let sessions: SessionRow[] | null = null;
let sessionFilter = '';

export function showSessions(rows: SessionRow[]): void {
  sessions = rows;
  overlay.hidden = false;
  renderSessions();
}

function renderSessions(): void {
  clear(overlay);
  const search = h('input.search', { type: 'search', placeholder: 'Search sessions', value: sessionFilter, 'data-testid': 'session-search' });
  const rows = h('div.session-list');
  const fill = () => {
    clear(rows);
    const q = sessionFilter.toLowerCase();
    const shown = (sessions ?? []).filter((s) => !q || s.title.toLowerCase().includes(q) || s.sessionId.includes(q));
    if (shown.length === 0) rows.append(h('div.muted', { text: 'No sessions.' }));
    for (const s of shown) {
      rows.append(
        h(
          'button.session-row',
          {
            'data-testid': 'session-row',
            'data-current': String(s.sessionId === app.vm.sessionId),
            onclick: () => {
              overlay.hidden = true;
              post({ type: 'resumeSession', sessionId: s.sessionId });
            },
          },
          h('span.session-title', { text: s.title || '(untitled)' }),
          h('span.muted', { text: `${relTime(s.updatedAt)} · ${s.messageCount} messages${s.isStreaming ? ' · running' : ''}` }),
        ),
      );
    }
  };
  search.addEventListener('input', () => {
    sessionFilter = search.value;
    fill();
  });
  search.addEventListener('keydown', (e) => {
    if (e.key === 'Escape') overlay.hidden = true;
  });
  overlay.append(
    h(
      'div.overlay-head',
      {},
      h('strong', { text: 'Sessions' }),
      h('span.spacer'),
      h('button.secondary', { text: 'New session', onclick: () => ((overlay.hidden = true), post({ type: 'newSession' })) }),
      h('button.icon', { title: 'Close', text: '×', onclick: () => (overlay.hidden = true) }),
    ),
    search,
    rows,
  );
  fill();
  search.focus();
}
