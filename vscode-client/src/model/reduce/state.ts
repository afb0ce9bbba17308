// pi/state: the session's status as the server reports it (model, usage, context, mode,
// todo, MCP servers). The server's word wins over what the events implied.

import type { ViewModel } from '../types';
import type { Draft } from './draft';
import { endRunLocally } from './run_end';
import { normMcp, normTodo, normUsage, num, str } from './parse';

export function applyState(d: Draft, s: Record<string, unknown>): void {
  const vm = d.vm;
  if (typeof s.sessionId === 'string' && vm.sessionId !== null && s.sessionId !== vm.sessionId) return;
  if (typeof s.isStreaming === 'boolean' && !s.isStreaming && vm.isStreaming) {
    // The server says the run is over although we saw no agent_end: trust it.
    endRunLocally(d, null);
  } else if (typeof s.isStreaming === 'boolean') {
    vm.isStreaming = s.isStreaming;
  }
  const model = s.model;
  if (model && typeof model === 'object') {
    const m = model as Record<string, unknown>;
    vm.model = {
      provider: typeof m.provider === 'string' ? m.provider : undefined,
      id: str(m.id),
      name: typeof m.name === 'string' ? m.name : undefined,
      contextWindow: num(m.contextWindow) ?? undefined,
    };
    if (num(m.contextWindow) !== null) vm.contextWindow = num(m.contextWindow);
  } else if (typeof model === 'string') {
    vm.model = { id: model };
  }
  const usage = normUsage(s.usage);
  if (usage) vm.usage = usage;
  if (num(s.contextTokens) !== null) vm.contextTokens = num(s.contextTokens);
  if (num(s.contextWindow) !== null) vm.contextWindow = num(s.contextWindow);
  if (typeof s.thinkingLevel === 'string') vm.thinkingLevel = s.thinkingLevel;
  if (s.mode === 'plan' || s.mode === 'act') setMode(vm, s.mode);
  if (Array.isArray(s.todo)) vm.todo = normTodo(s.todo);
  if (Array.isArray(s.mcp)) vm.mcp = normMcp(s.mcp);
}

export function setMode(vm: ViewModel, mode: 'plan' | 'act'): void {
  if (mode !== 'plan') vm.planReady = false;
  vm.mode = mode;
}
