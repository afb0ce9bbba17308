// The project's context in the panel (docs/context.md): the slash commands the server offers
// (`pi/commands`: its own, the prompt templates, the skills) for the composer's `/` completion,
// and what the current session loaded (`pi/context`: context files, skills, templates, trust,
// diagnostics) for the panel's Context section. Pulled when the panel shows another session,
// when the session's resources are loaded again (`resources_update`), and on reload
// (`pi/reload`). Only against a server that declares the `context` feature. A
// `resource_notice` becomes a warning toast in the panel.

import type { CommandInfo, ContextResult } from '../protocol/generated';
import type { WireNotification } from '../model/reducer';
import type { Host } from './host';

export class ContextControl {
  private sessionId: string | null = null;
  private commands: CommandInfo[] = [];
  private context: ContextResult | null = null;
  private readonly sub: { dispose(): void };

  constructor(private readonly host: Host) {
    this.sub = host.onDidChange((vm) => {
      if (vm.sessionId !== this.sessionId) {
        this.sessionId = vm.sessionId;
        void this.refresh();
      }
    });
  }

  /** A `pi/event` seen by the controller: the current session's resources changed, or a
   * notice about the typed `/name` (unknown: sent as typed; too few arguments). */
  noteEvent(note: WireNotification): void {
    if (note.sessionId !== this.host.state().sessionId) return;
    const ev = note.event as { type: string; message?: unknown };
    if (ev.type === 'resources_update') void this.refresh();
    else if (ev.type === 'resource_notice' && typeof ev.message === 'string') this.host.post({ type: 'toast', level: 'warning', text: ev.message });
  }

  /** Ask the server again and post the result to the panels. */
  async refresh(): Promise<void> {
    if (!this.host.features().has('context')) return;
    const sessionId = this.host.state().sessionId;
    const params = sessionId ? { sessionId } : {};
    try {
      const rpc = this.host.rpc();
      const [commands, context] = await Promise.all([rpc.commands(params), rpc.context(params).catch(() => null)]);
      this.commands = commands.commands;
      this.context = context;
      this.publish();
    } catch (err) {
      this.host.log(`the project context could not be read: ${String(err)}`);
    }
  }

  /** `/reload` or the Context section's Reload button. */
  async reload(): Promise<void> {
    if (!this.host.features().has('context')) return;
    const sessionId = this.host.state().sessionId;
    this.context = await this.host.rpc().reload(sessionId ? { sessionId } : {});
    await this.refresh();
  }

  /** What a panel opened later needs (its `ready`). */
  publish(): void {
    this.host.post({ type: 'resources', commands: this.commands, context: this.context });
  }

  dispose(): void {
    this.sub.dispose();
  }
}
