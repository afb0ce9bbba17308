// Sessions: which session the panel shows (the last one reopened at start, a new one, one
// picked from the history, a fork), re-attaching after the server restarted (with the events
// missed meanwhile, docs/protocol.md §13), and pulling what the panel shows besides events.

import * as vscode from 'vscode';
import type { WireNotification } from '../model/reducer';
import { slimEvent } from '../model/tools';
import type { EventNotification } from '../protocol/generated';
import type { CheckpointControl } from './checkpoints';
import type { Host } from './host';
import type { ModelControl } from './models';
import type { ReviewControl } from './review';

const LAST_SESSION_KEY = 'pi.lastSessionId';

/** A `pi/event` as the view model keeps it: the bulky parts nobody renders dropped. A
 * `pi/replay` result's events are such notifications (its schema leaves them untyped). */
export function slimNote(n: EventNotification | Record<string, unknown>): WireNotification {
  const raw = n as EventNotification;
  return { sessionId: raw.sessionId, seq: raw.seq, event: slimEvent(raw.event) };
}

export class Sessions {
  private attachingNow: Promise<void> | null = null;
  /** The `pi/replay` under way (one at a time); `replayAgain`: asked for again meanwhile. */
  private replaying: Promise<void> | null = null;
  private replayAgain = false;
  /** The last seq seen before the connection dropped (a server that kept running continues it). */
  private seqAtDisconnect: number | null = null;

  constructor(
    private readonly host: Host,
    private readonly parts: { review: ReviewControl; checkpoints: CheckpointControl; models: ModelControl },
  ) {}

  attaching(): Promise<void> | null {
    return this.attachingNow;
  }

  disconnected(): void {
    this.seqAtDisconnect = this.host.state().lastSeq;
  }

  /** A `pi/event`: into the view model; the context meter is pulled after every run and compaction. */
  event(raw: EventNotification): WireNotification {
    const note = slimNote(raw);
    this.host.dispatch({ type: 'event', note });
    const type = note.event.type;
    // (a model that reports no usage — many local servers — would otherwise leave the meter empty)
    if ((type === 'agent_end' || type === 'compaction_end') && raw.sessionId === this.host.state().sessionId) {
      void this.pullState(raw.sessionId);
    }
    return note;
  }

  /** Make sure the panel shows a session: the last one (reopened on start) or a new one. */
  attach(reconnect: boolean): Promise<void> {
    if (this.attachingNow) return this.attachingNow;
    this.attachingNow = (async () => {
      try {
        const current = this.host.state().sessionId;
        const sid = current ?? this.host.context.workspaceState.get<string>(LAST_SESSION_KEY);
        // A background server may have a run going (this window was reloaded): show that one.
        const live = reconnect || current ? undefined : await this.streamingSession(sid);
        if (reconnect && current) {
          await this.reattach(current);
        } else if (live) {
          await this.load(live);
        } else if (sid && vscode.workspace.getConfiguration('pi').get<boolean>('reopenLastSession', true)) {
          try {
            await this.load(sid);
          } catch (err) {
            this.host.log(`could not reopen session ${sid}: ${String(err)}`);
            await this.newSession();
          }
        } else {
          await this.newSession();
        }
        await this.parts.models.list();
      } catch (err) {
        this.host.log(`attach failed: ${String(err)}`);
      } finally {
        this.attachingNow = null;
      }
    })();
    return this.attachingNow;
  }

  /** The session a run is going in (the last one shown, if it is one of them). */
  private async streamingSession(last: string | undefined): Promise<string | undefined> {
    const r = await this.host.rpc().sessions({});
    const live = (r.sessions ?? []).filter((x) => x.isStreaming).map((x) => x.sessionId);
    return last && live.includes(last) ? last : live[0];
  }

  /** After a server restart: resume the session, then replay what we missed if it is live. */
  private async reattach(sessionId: string): Promise<void> {
    const rpc = this.host.rpc();
    await rpc.resumeSession({ sessionId });
    const st = await rpc.state({ sessionId });
    this.host.dispatch({ type: 'state', state: { ...st } });
    if (st.isStreaming) {
      // The server kept the run going (pi-lsp --tcp): fetch what we missed, nothing twice.
      const afterSeq = this.seqAtDisconnect ?? 0;
      const r = await rpc.replay({ sessionId, afterSeq });
      const events = (r.events ?? []).map(slimNote);
      this.host.dispatch({ type: 'replay', sessionId, events, complete: afterSeq > 0 ? r.complete !== false : true });
    }
    this.host.dispatch({ type: 'notice', level: 'info', topic: 'reconnect', text: 'Reconnected to the pi server.' });
    await this.refresh(sessionId);
  }

  /**
   * Fetch the events after `afterSeq` (a gap the reducer found, or a live run being attached
   * to). One repair at a time; one asked for while another is under way is not dropped: the
   * one under way may have started from another seq (a gap repair sent before the session's
   * transcript was loaded asks from where the old transcript stood), so once it is done the
   * replay runs again from where the view model stands, until a round was asked for by no one.
   * Resolves when the view model holds every event the server had when the last round began.
   */
  replay(sessionId: string, afterSeq: number): Promise<void> {
    if (this.replaying) {
      this.replayAgain = true;
      return this.replaying;
    }
    const run = async (): Promise<void> => {
      let after = afterSeq;
      for (;;) {
        this.replayAgain = false;
        const r = await this.host.rpc().replay({ sessionId, afterSeq: after });
        const events = (r.events ?? []).map(slimNote);
        this.host.dispatch({ type: 'replay', sessionId, events, complete: r.complete !== false });
        const vm = this.host.state();
        if (!this.replayAgain || vm.sessionId !== sessionId || vm.lastSeq === null) return;
        after = vm.lastSeq;
      }
    };
    this.replaying = run().finally(() => {
      this.replaying = null;
    });
    return this.replaying;
  }

  async newSession(): Promise<string> {
    const r = await this.host.rpc().newSession();
    this.host.dispatch({ type: 'loadSession', sessionId: r.sessionId, messages: [] });
    await this.host.context.workspaceState.update(LAST_SESSION_KEY, r.sessionId);
    await this.refresh(r.sessionId);
    return r.sessionId;
  }

  async load(sessionId: string): Promise<void> {
    this.host.dispatch({ type: 'beginSession', sessionId });
    const r = await this.host.rpc().resumeSession({ sessionId });
    // A run going on (the background server kept it while this window reloaded): show the
    // transcript before it, then its events from pi/replay — the partial answer included.
    const live = r.liveRun ?? undefined;
    const messages = r.messages ?? [];
    this.host.dispatch({
      type: 'loadSession',
      sessionId: r.sessionId,
      messages: live ? messages.slice(0, live.messageCount) : messages,
      entryIds: live ? r.entryIds?.slice(0, live.messageCount) : (r.entryIds ?? undefined),
      afterSeq: live?.afterSeq,
    });
    if (live) await this.replay(r.sessionId, live.afterSeq);
    if (r.forkedFrom) {
      // The session is being written by another window or process: we continue in a fork.
      this.host.dispatch({
        type: 'notice',
        level: 'info',
        topic: 'info',
        text: 'This session is open in another window, so it continues here as a fork (the original is untouched).',
      });
    }
    await this.host.context.workspaceState.update(LAST_SESSION_KEY, r.sessionId);
    await this.refresh(r.sessionId);
  }

  async list(): Promise<void> {
    const r = await this.host.rpc().sessions();
    this.host.post({ type: 'sessions', sessions: r.sessions ?? [], currentId: this.host.state().sessionId });
  }

  async fork(entryId: string): Promise<void> {
    const sessionId = this.host.state().sessionId;
    if (!sessionId) return;
    const r = await this.host.rpc().forkSession({ sessionId, entryId });
    await this.load(r.sessionId);
  }

  /** The session's state only (usage totals, context meter, model, MCP servers). */
  private async pullState(sessionId: string): Promise<void> {
    try {
      const st = await this.host.rpc().state({ sessionId });
      if (sessionId === this.host.state().sessionId) this.host.dispatch({ type: 'state', state: { ...st } });
      this.parts.models.pollMcp();
    } catch (err) {
      this.host.log(`state of ${sessionId} failed: ${String(err)}`);
    }
  }

  /** The state, the pending review and the checkpoints (each only if the server has it). */
  async refresh(sessionId: string): Promise<void> {
    void this.parts.models.pullMcp();
    const pulls: [string, () => Promise<void>][] = [
      ['state', async () => this.host.dispatch({ type: 'state', state: { ...(await this.host.rpc().state({ sessionId })) } })],
      ['review', () => this.parts.review.pull(sessionId)],
      ['checkpoints', () => this.parts.checkpoints.pull(sessionId)],
    ];
    for (const [what, pull] of pulls) {
      try {
        await pull();
      } catch (err) {
        this.host.log(`${what} of ${sessionId} failed: ${String(err)}`);
      }
    }
  }
}
