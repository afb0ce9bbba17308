// The run is over (agent_end, pi/state saying so, or the server went away): nothing stays
// "running". Its own module so that events.ts and state.ts both use it without importing each
// other.

import type { AssistantItem, PermissionItem, QuestionItem, ToolItem } from '../types';
import type { Draft } from './draft';
import { notice } from './parse';

/** The run is over (agent_end, or the server went away): nothing stays "running". */
export function endRunLocally(d: Draft, reason: string | null): void {
  const vm = d.vm;
  vm.isStreaming = false;
  vm.compacting = false;
  const items = vm.items;
  for (let i = Math.max(0, items.length - 400); i < items.length; i++) {
    const it = items[i];
    if (it.kind === 'assistant' && it.streaming) {
      d.update<AssistantItem>(it.id, (x) => {
        x.streaming = false;
        if (reason && !x.stopReason) {
          x.stopReason = 'error';
          x.errorMessage = reason;
        }
      });
    } else if (it.kind === 'tool' && (it.status === 'running' || it.status === 'pending')) {
      d.update<ToolItem>(it.id, (x) => {
        x.status = 'error';
        x.summary = reason ?? 'not run';
      });
    } else if (it.kind === 'permission' && it.status === 'pending' && reason) {
      d.update<PermissionItem>(it.id, (x) => {
        x.status = 'withdrawn';
      });
    }
  }
  for (const q of vm.questions) {
    d.update<QuestionItem>(q.id, (x) => {
      x.status = 'withdrawn';
    });
  }
  vm.questions = [];
  if (vm.mode === 'plan' && !reason) vm.planReady = true;
  if (reason) {
    vm.permissions = [];
    d.push(notice(d, 'warning', 'reconnect', reason));
  }
}
