// Short-lived messages in the panel's corner (slash command help, warnings).

import { h } from './dom';

export const toasts = h('div.toasts');

export function toast(level: string, text: string): void {
  const t = h(`div.toast.${level}` as 'div', { role: 'status', text });
  toasts.append(t);
  setTimeout(() => t.remove(), 6000);
}
