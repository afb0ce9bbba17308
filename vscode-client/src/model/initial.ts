// The empty view model: what the panel shows before the server has said anything.

import type { Usage, ViewModel } from './types';

export const ZERO_USAGE: Usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, cost: 0 };

export function initialState(): ViewModel {
  return {
    server: { status: 'starting' },
    features: {
      queue: false,
      interrupt: false,
      review: false,
      checkpoints: false,
      models: false,
      permissions: false,
    },
    sessionId: null,
    lastSeq: null,
    replayAfter: null,
    isStreaming: false,
    turn: 0,
    items: [],
    queue: { steering: [], followUp: [] },
    waiting: [],
    permissions: [],
    questions: [],
    mode: 'act',
    todo: [],
    planReady: false,
    review: [],
    checkpoints: [],
    usage: { ...ZERO_USAGE },
    contextTokens: null,
    contextWindow: null,
    model: null,
    thinkingLevel: null,
    mcp: [],
    compacting: false,
    held: [],
    nextId: 1,
    rev: 0,
  };
}
