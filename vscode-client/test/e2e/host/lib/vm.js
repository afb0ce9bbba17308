// Reading the panel's view model (`api.state()`) and acting through the panel's own paths.
// The one place that knows the view model's field names and the extension's message types,
// so a rename in the extension is fixed here, not in every spec.
'use strict';

// Field names: see the doc comment of PiApi in src/api.ts.
const items = (s) => s.items || [];
const kindOf = (i) => i.kind;
const blockText = (i, type) => (i.blocks || []).filter((b) => b.type === type).map((b) => b.text).join('');

const vm = {
  server: (s) => s.server || {},
  serverStatus: (s) => (s.server || {}).status,
  sessionId: (s) => s.sessionId,
  isStreaming: (s) => !!s.isStreaming,
  features: (s) => s.features || {},
  items,
  userItems: (s) => items(s).filter((i) => kindOf(i) === 'user'),
  assistantItems: (s) => items(s).filter((i) => kindOf(i) === 'assistant'),
  toolCards: (s) => items(s).filter((i) => kindOf(i) === 'tool'),
  /** A user message's text, an assistant message's text blocks, a checkpoint's text. */
  text: (i) => {
    if (!i) return '';
    if (i.kind === 'assistant') return blockText(i, 'text');
    return i.text || '';
  },
  stopReason: (i) => i && i.stopReason,
  toolName: (c) => c && c.toolName,
  toolStatus: (c) => c && c.status,
  deliveredTurn: (i) => i && i.turn,
  userTexts: (s) => vm.userItems(s).map(vm.text),
  lastAssistantText: (s) => {
    const a = vm.assistantItems(s);
    return a.length ? vm.text(a[a.length - 1]) : undefined;
  },
  permissionCards: (s) => items(s).filter((i) => kindOf(i) === 'permission' && i.status === 'pending'),
  permissionDetail: (p) => p.detail || p.title || '',
  questionCards: (s) => items(s).filter((i) => kindOf(i) === 'question' && i.status === 'pending'),
  todo: (s) => s.todo || [],
  pendingHunks: (s, uri) => {
    const f = (s.review || []).find((x) => x.uri === uri.toString());
    return f ? f.hunks : [];
  },
  checkpoints: (s) => s.checkpoints || [],

  newSession: (a) => a.newSession(),
  restartServer: (a) => a.restartServer(),
  answerPermission(a, card, kind, reason) {
    const option = (card.options || []).find((o) => o.kind === kind);
    if (!option) throw new Error(`permission card has no ${kind} option: ${JSON.stringify(card.options)}`);
    return a.webviewMessage({ type: 'permission', requestKey: card.requestKey, optionId: option.id, reason });
  },
  answerQuestion: (a, card, answers, text) =>
    a.webviewMessage({ type: 'answer', requestKey: card.requestKey, answers, ...(text ? { text } : {}) }),
  restore: (a, checkpoint, mode) => a.webviewMessage({ type: 'restore', entryId: checkpoint.entryId, mode }),
  /** "Revert this change" on an edit/write tool card. */
  revertToolCall: (a, card) => a.webviewMessage({ type: 'revertToolCall', toolCallId: card.toolCallId }),
  /** "pi was told: …" markers (notes pi gave the model, e.g. the review note). */
  toldNotices: (s) => items(s).filter((i) => kindOf(i) === 'notice' && i.topic === 'told'),
};

module.exports = vm;
