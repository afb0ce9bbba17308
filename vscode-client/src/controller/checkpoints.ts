// Checkpoints (docs/protocol.md §9.5): the session's checkpoints for the panel, restore code
// and/or conversation to one, revert one tool call's change, and undo a restore — each
// reported in a notice (with the undo for what changed files).

import type { Host } from './host';

export type RestoreMode = 'code' | 'conversation' | 'both';

function files(n: number): string {
  return `${n} file${n === 1 ? '' : 's'}`;
}

export class CheckpointControl {
  constructor(private readonly host: Host) {}

  /** The session's checkpoints (when the server has them). */
  async pull(sessionId: string): Promise<void> {
    if (!this.host.features().has('checkpoints')) return;
    const cp = await this.host.rpc().checkpoints({ sessionId });
    this.host.dispatch({ type: 'checkpoints', checkpoints: cp.checkpoints ?? [] });
  }

  async restore(entryId: string, mode: RestoreMode): Promise<unknown> {
    const sessionId = this.host.state().sessionId;
    if (!sessionId) return undefined;
    const r = await this.host.rpc().restore({ sessionId, entryId, mode });
    const reverted = r.reverted?.length ?? 0;
    const conflicts = r.conflicts?.length ?? 0;
    const parts: string[] = [];
    if (mode !== 'conversation') parts.push(`restored code: ${files(reverted)} reverted`);
    if (conflicts) parts.push(`${conflicts} conflict${conflicts === 1 ? '' : 's'} left as they are`);
    if (mode !== 'code') parts.push('conversation restored to before that message');
    if (r.note) parts.push(r.note);
    if (r.sessionId && r.sessionId !== sessionId) await this.host.loadSession(r.sessionId);
    this.host.dispatch({
      type: 'notice',
      level: conflicts ? 'warning' : 'info',
      topic: 'restore',
      text: `${parts.join('; ')}.`,
      restoreId: r.restoreId ?? undefined,
    });
    if (mode !== 'code' && typeof r.text === 'string') this.host.post({ type: 'setInput', text: r.text });
    return r;
  }

  /** "Revert this change" on an edit/write card; undoable from its notice. */
  async revertToolCall(toolCallId: string): Promise<unknown> {
    const sessionId = this.host.state().sessionId;
    if (!sessionId) return undefined;
    const r = await this.host.rpc().revertToolCall({ sessionId, toolCallId });
    const reverted = r.reverted?.length ?? 0;
    const conflicts = r.conflicts ?? [];
    const parts = [`reverted this change: ${files(reverted)}`];
    if (conflicts.length) parts.push(conflicts.map((c) => c.message).join('; '));
    this.host.dispatch({
      type: 'notice',
      level: conflicts.length ? 'warning' : 'info',
      topic: 'restore',
      text: `${parts.join('; ')}.`,
      restoreId: reverted ? (r.restoreId ?? undefined) : undefined,
    });
    return r;
  }

  async undoRestore(restoreId: string): Promise<unknown> {
    const sessionId = this.host.state().sessionId;
    if (!sessionId) return undefined;
    const r = await this.host.rpc().undoRestore({ sessionId, restoreId });
    this.host.dispatch({ type: 'notice', level: 'info', topic: 'info', text: 'Restore undone.' });
    return r;
  }
}
