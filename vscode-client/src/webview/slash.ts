// Slash commands typed in the input (/new, /sessions, /compact, /fork, /model, /thinking,
// /stop, /context, /reload, /export, /help): handled in the panel, never sent to the model. Any
// other `/name` (a prompt template, `/skill:name`) is sent: the server expands it.

import { openContext } from './context';
import { app, post } from './state';
import { toast } from './toasts';

export const SLASH: Record<string, string> = {
  '/new': 'start a new session',
  '/sessions': 'browse and resume sessions',
  '/compact': 'summarise older messages to free context',
  '/fork': 'branch a new session at your last message',
  '/model': 'switch the model of this session: /model <id>',
  '/thinking': 'thinking level: /thinking off|minimal|low|medium|high|xhigh',
  '/stop': 'stop the run (the queue is kept)',
  '/context': 'show the context files, skills and templates loaded',
  '/reload': 'load the context files, skills and templates again',
  '/export': 'open this session as an HTML page in the browser',
  '/help': 'list these commands',
};

/** Slash commands; true when the text was one (and was handled). */
export function slash(text: string): boolean {
  const m = /^(\/[a-z]+)(?:\s+(.*))?$/s.exec(text);
  if (!m || !(m[1] in SLASH)) return false;
  const arg = (m[2] ?? '').trim();
  switch (m[1]) {
    case '/new':
      post({ type: 'newSession' });
      break;
    case '/sessions':
      post({ type: 'listSessions' });
      break;
    case '/compact':
      post({ type: 'compact' });
      break;
    case '/fork': {
      const last = [...app.vm.items].reverse().find((i) => i.kind === 'user' && i.entryId);
      if (last && last.kind === 'user' && last.entryId) post({ type: 'fork', entryId: last.entryId });
      else toast('warning', 'Nothing to fork from yet.');
      break;
    }
    case '/model':
      if (arg) post({ type: 'setModel', model: arg });
      else toast('info', `Model: ${app.vm.model?.name ?? app.vm.model?.id ?? 'unknown'}`);
      break;
    case '/thinking':
      if (['off', 'minimal', 'low', 'medium', 'high', 'xhigh'].includes(arg)) post({ type: 'setThinking', level: arg });
      else toast('warning', SLASH['/thinking']);
      break;
    case '/stop':
      post({ type: 'stop' });
      break;
    case '/context':
      openContext();
      break;
    case '/reload':
      post({ type: 'reloadContext' });
      break;
    case '/export':
      post({ type: 'export' });
      break;
    case '/help':
      toast('info', Object.entries(SLASH).map(([k, v]) => `${k} — ${v}`).join('\n'));
      break;
  }
  return true;
}
