// Plan mode and the agent's todo checklist, pinned above the input.

import { clear, h } from './dom';
import { app, persist, post } from './state';

export const planEl = h('div.plan', { 'data-testid': 'plan', hidden: true });
export const modeBtn = h('button.link', { 'data-testid': 'mode-toggle' });
let planCollapsed = app.persisted.planCollapsed === true;

/** What paintPlan shows, for the frame loop's change check. */
export function planDeps(): unknown[] {
  return [app.vm.todo, app.vm.mode, app.vm.isStreaming, app.vm.planReady, planCollapsed];
}

const MARK: Record<string, string> = { completed: '☑', in_progress: '◐', pending: '☐' };

/** The mode and the agent's checklist, pinned above the input (folded to one line on demand;
 * the fold survives reloads). In plan mode, once a run has planned, "Start with this plan"
 * switches to act mode, which tells the agent to carry the plan out. */
export function paintPlan(): void {
  clear(planEl);
  const todo = app.vm.todo;
  const planning = app.vm.mode === 'plan';
  modeBtn.textContent = planning ? 'Plan mode ✓' : 'Plan mode';
  modeBtn.title = planning
    ? 'The agent can only read and plan. Click to leave plan mode.'
    : 'Plan first: the agent can only read, and writes a plan you approve';
  modeBtn.setAttribute('aria-pressed', String(planning));
  planEl.hidden = todo.length === 0 && !planning;
  planEl.dataset.mode = app.vm.mode;
  if (planEl.hidden) return;
  const done = todo.filter((t) => t.status === 'completed').length;
  const head = h('div.plan-head');
  if (todo.length > 0) {
    head.append(
      h('button.link', {
        'data-testid': 'plan-toggle',
        'aria-expanded': String(!planCollapsed),
        text: `${planCollapsed ? '▸' : '▾'} Plan ${done}/${todo.length}`,
        onclick: () => {
          planCollapsed = !planCollapsed;
          persist({ planCollapsed });
          paintPlan();
        },
      }),
    );
    if (planCollapsed) {
      const current = todo.find((t) => t.status === 'in_progress') ?? todo.find((t) => t.status === 'pending');
      if (current) head.append(h('span.muted', { text: current.content }));
    }
  }
  head.append(h('span.grow'));
  if (planning) head.append(h('span.plan-mode', { 'data-testid': 'mode', text: 'plan mode · read-only' }));
  if (planning && !app.vm.isStreaming) {
    head.append(
      h(`button.${app.vm.planReady ? 'primary' : 'secondary'}` as 'button', {
        'data-testid': 'start-plan',
        text: app.vm.planReady ? 'Start with this plan' : 'Leave plan mode',
        title: app.vm.planReady ? 'Switch to act mode: pi carries out the plan it wrote' : 'Switch to act mode',
        onclick: () => post({ type: 'setMode', mode: 'act' }),
      }),
    );
  }
  planEl.append(head);
  if (todo.length > 0 && !planCollapsed) {
    const ul = h('ul.plan-list', { 'data-testid': 'plan-list' });
    for (const t of todo) {
      ul.append(h('li', { 'data-status': t.status, 'data-testid': 'plan-item', text: `${MARK[t.status] ?? '☐'} ${t.content}` }));
    }
    planEl.append(ul);
  }
}

modeBtn.addEventListener('click', () => post({ type: 'setMode', mode: app.vm.mode === 'plan' ? 'act' : 'plan' }));
