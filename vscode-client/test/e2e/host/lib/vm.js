// Reading the panel's view model (`api.state()`) and acting through the panel's own paths.
// The one place that knows the view model's field names and the extension's message types,
// so a rename in the extension is fixed here, not in every spec.
'use strict';
const vscode = require('vscode');

const items = (s) => s.transcript || s.items || [];
const kindOf = (i) => i.kind || i.type || i.role;

const vm = {
  server: (s) => s.server || {},
  serverStatus: (s) => (s.server || {}).status,
  sessionId: (s) => s.sessionId,
  isStreaming: (s) => !!s.isStreaming,
  items,
  userItems: (s) => items(s).filter((i) => kindOf(i) === 'user'),
  assistantItems: (s) => items(s).filter((i) => kindOf(i) === 'assistant'),
  toolCards: (s) => items(s).filter((i) => kindOf(i) === 'tool' || kindOf(i) === 'toolCard'),
  text: (i) => (i ? (i.text !== undefined ? i.text : (i.content || '')) : ''),
  stopReason: (i) => i && i.stopReason,
  toolName: (c) => c.toolName || c.name,
  toolStatus: (c) => c.status,
  deliveredTurn: (i) => i && (i.deliveredInTurn ?? i.turn),
  userTexts: (s) => vm.userItems(s).map(vm.text),
  lastAssistantText: (s) => {
    const a = vm.assistantItems(s);
    return a.length ? vm.text(a[a.length - 1]) : undefined;
  },
  permissionCards: (s) => (s.permissions || s.pendingPermissions || []).filter((p) => !p.answered),
  permissionDetail: (p) => p.detail || p.title || '',
  pendingHunks: (s, uri) => {
    const files = (s.review && s.review.files) || [];
    const f = files.find((x) => x.uri === uri.toString());
    return f ? f.hunks : [];
  },
  checkpoints: (s) => s.checkpoints || vm.userItems(s).filter((i) => i.entryId),

  async newSession(a) {
    if (a.newSession) return a.newSession();
    return vscode.commands.executeCommand('pi.newSession');
  },
  async restartServer(a) {
    if (a.restartServer) return a.restartServer();
    return vscode.commands.executeCommand('pi.restartServer');
  },
  async answerPermission(a, card, kind, reason) {
    const option = (card.options || []).find((o) => o.kind === kind);
    return a.webviewMessage({ type: 'permission', toolCallId: card.toolCallId, optionId: option ? option.id : kind, reason });
  },
  async restore(a, checkpoint, mode) {
    return a.webviewMessage({ type: 'restore', entryId: checkpoint.entryId, mode });
  },
};

module.exports = vm;
