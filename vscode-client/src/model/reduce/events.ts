// One in-order pi/event applied to the view model: the run's lifecycle, notices (compaction,
// retry, saving) and the session-level updates (todo, mode, queue, review). Message and tool
// events are delegated to messages.ts.

import type { NoticeItem, ToolItem, WireEvent } from '../types';
import { clipOutput, summariseTool, toolDiff, toolOutputText, toolTitle } from '../tools';
import type { Draft } from './draft';
import { ensureTool, messageEnd, messageStart, messageUpdate } from './messages';
import { fmtTokens, normQueue, normTodo, notice, num, obj, str } from './parse';
import { applySubagentUpdate } from './children';
import { endRunLocally } from './run_end';
import { setMode } from './state';

export function applyEvent(d: Draft, ev: WireEvent): void {
  const vm = d.vm;
  switch (ev.type) {
    case 'agent_start':
      vm.isStreaming = true;
      vm.turn = 0;
      vm.planReady = false;
      break;
    case 'turn_start':
      vm.turn += 1;
      break;
    case 'message_start':
      messageStart(d, ev);
      break;
    case 'message_update':
      messageUpdate(d, ev);
      break;
    case 'message_end':
      messageEnd(d, ev);
      break;
    case 'tool_execution_start': {
      const t = ensureTool(d, str(ev.toolCallId), str(ev.toolName), obj(ev.args));
      d.update<ToolItem>(t.id, (x) => {
        x.status = 'running';
        if (ev.args && typeof ev.args === 'object') {
          x.args = obj(ev.args);
          x.title = toolTitle(x.toolName, x.args);
        }
      });
      break;
    }
    case 'tool_execution_update': {
      const t = ensureTool(d, str(ev.toolCallId), str(ev.toolName), {});
      const text = toolOutputText(ev.partialResult);
      d.update<ToolItem>(t.id, (x) => {
        x.status = 'running';
        Object.assign(x, clipOutput(text));
      });
      break;
    }
    case 'tool_execution_end': {
      const t = ensureTool(d, str(ev.toolCallId), str(ev.toolName), {});
      const isError = ev.isError === true;
      const text = toolOutputText(ev.result);
      d.update<ToolItem>(t.id, (x) => {
        x.status = isError ? 'error' : 'done';
        Object.assign(x, clipOutput(text));
        x.summary = summariseTool(x.toolName, x.args, text, isError);
        if (!isError) x.diff = toolDiff(x.toolName, x.args, ev.result);
      });
      break;
    }
    case 'turn_end':
      break;
    case 'subagent_update':
      applySubagentUpdate(d, ev);
      break;
    case 'agent_end':
      endRunLocally(d, null);
      if (vm.sessionId) d.effects.push({ type: 'refresh', sessionId: vm.sessionId });
      break;
    case 'compaction_start':
      vm.compacting = true;
      d.push(notice(d, 'info', 'compaction', `Compacting the conversation (${str(ev.reason) || 'manual'})…`));
      break;
    case 'compaction_end': {
      vm.compacting = false;
      const before = num(ev.tokensBefore);
      const after = num(ev.tokensAfter);
      let text: string;
      let level: NoticeItem['level'] = 'info';
      if (typeof ev.errorMessage === 'string' && ev.errorMessage) {
        text = `Compaction failed: ${ev.errorMessage}`;
        level = 'warning';
      } else if (ev.aborted === true) {
        text = 'Compaction aborted.';
        level = 'warning';
      } else if (before !== null && after !== null) {
        text = `Compacted the conversation: ${fmtTokens(before)} → ${fmtTokens(after)} tokens.`;
        vm.contextTokens = after;
      } else {
        text = 'Compacted the conversation.';
      }
      d.push(notice(d, level, 'compaction', text));
      break;
    }
    case 'retry': {
      const delay = num(ev.delayMs) ?? 0;
      d.push(
        notice(
          d,
          'warning',
          'retry',
          `${str(ev.errorMessage) || 'Provider error'} — retrying (attempt ${num(ev.attempt) ?? '?'}) in ${(delay / 1000).toFixed(1)} s`,
        ),
      );
      break;
    }
    case 'session_save':
      d.push(
        ev.ok === false
          ? notice(d, 'error', 'save', `pi cannot save this session: ${str(ev.errorMessage) || 'unknown error'}. What happens now may be lost after a restart.`)
          : notice(d, 'info', 'save', 'Saving the session works again.'),
      );
      break;
    case 'todo_update':
      vm.todo = normTodo(Array.isArray(ev.items) ? ev.items : []);
      break;
    case 'mode_update':
      if (ev.mode === 'plan' || ev.mode === 'act') setMode(vm, ev.mode);
      break;
    case 'queue_update':
      vm.queue = normQueue(ev);
      vm.features = vm.features.queue ? vm.features : { ...vm.features, queue: true };
      break;
    case 'review_update':
      vm.review = Array.isArray(ev.files) ? ev.files.filter((f) => f.hunks?.length) : [];
      vm.features = vm.features.review ? vm.features : { ...vm.features, review: true };
      break;
    default:
      break; // unknown events are ignored (newer server)
  }
}
