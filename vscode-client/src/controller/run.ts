// The run and its queue: what the input box sends (a prompt, or while a run goes on a steer /
// follow-up / interrupt, docs/protocol.md §7), stop, the visible queue's edits, plan/act mode.

import * as vscode from 'vscode';
import type { DeliverAs } from '../model/types';
import type { ImageParam, PromptParams, PromptResult, QueueOpParams, QueueResult } from '../protocol/generated';
import type { Asks } from './asks';
import { type Held, PromptHold } from './hold';
import type { Host } from './host';

/** What `prompt()` resolves with: the server's answer, or `answer` when the text answered a question card. */
export interface Sent {
  sessionId: string;
  delivered: PromptResult['delivered'] | 'answer';
}

/** A prompt that did not go: its text is back in the input box and the reason in the
 * transcript already (the panel need not show it again). */
export class NotSent extends Error {}

export interface RunHooks {
  /** Settles once start-up's session attach is over (a prompt waits for it). */
  attaching(): Promise<void> | null;
  newSession(): Promise<string>;
}

export function enterAction(): DeliverAs {
  const v = vscode.workspace.getConfiguration('pi').get<string>('input.enterAction');
  return v === 'followUp' || v === 'interrupt' ? v : 'steer';
}

export class RunControl {
  constructor(
    private readonly host: Host,
    private readonly asks: Asks,
    private readonly hooks: RunHooks,
  ) {
    this.hold = new PromptHold(host);
  }

  private readonly hold: PromptHold;

  async prompt(text: string, deliverAs?: DeliverAs, attachments?: unknown[], context?: unknown, images?: ImageParam[]): Promise<Sent> {
    let held: Held | undefined;
    let r: Sent;
    try {
      // Before the server runs the prompt waits, shown in the transcript (hold.ts).
      held = await this.hold.untilRunning(text);
      r = await this.send(held, text, deliverAs, attachments, context, images);
    } catch (err) {
      throw this.giveBack(text, err);
    } finally {
      held?.done();
    }
    // delivered: from here on a failure never gives the text back (it would be sent twice)
    if (r.delivered !== 'answer' && this.host.state().sessionId !== r.sessionId) await this.host.loadSession(r.sessionId);
    return r;
  }

  /** A prompt that could not go: its text back in the input box, the reason in the transcript. */
  private giveBack(text: string, err: unknown): NotSent {
    const reason = (err instanceof Error ? err.message : String(err)).replace(/^pi: /, '');
    this.host.post({ type: 'setInput', text, keepDraft: true });
    this.host.dispatch({ type: 'notice', level: 'error', topic: 'info', text: `Not sent: ${reason}. Your message is back in the input box.` });
    return new NotSent(`pi: not sent: ${reason}`);
  }

  private async send(held: Held, text: string, deliverAs?: DeliverAs, attachments?: unknown[], context?: unknown, images?: ImageParam[]): Promise<Sent> {
    const attaching = this.hooks.attaching();
    if (attaching) await attaching;
    const sessionId = this.host.state().sessionId ?? (await this.hooks.newSession());
    const vm = this.host.state();
    const params: PromptParams = { text, sessionId };
    // An explicit gesture goes as it is: the server knows whether a run is going (an idle
    // session takes any of them as a prompt), while the view model's isStreaming may lag a
    // run the server has just started — dropping the gesture then turned an interrupt into a
    // steer. A server without deliverAs "interrupt" (§7) gets a steer. A prompt that waited
    // for the server behind another one goes as Enter does during a run (that one's run has
    // just started).
    const gesture = deliverAs ?? (vm.isStreaming || held.ahead > 0 ? enterAction() : undefined);
    if (gesture === 'interrupt' && !this.host.features().has('interrupt')) params.deliverAs = 'steer';
    else if (gesture) params.deliverAs = gesture;
    // Shapes checked by the webview message schema (messages.ts) or built by attach.ts.
    if (attachments && attachments.length > 0) params.attachments = attachments as PromptParams['attachments'];
    if (context) params.context = context as PromptParams['context'];
    if (images && images.length > 0) params.images = images;
    else if (this.asks.answerWaitingQuestion(text)) return { sessionId, delivered: 'answer' };
    if (params.deliverAs === 'steer' || params.deliverAs === 'interrupt') this.asks.denyWaiting(text);
    const rpc = this.host.rpc();
    held.done(); // it goes now: the server's own user message replaces the waiting one
    return rpc.prompt(params);
  }

  async abort(): Promise<{ aborted: boolean }> {
    const sessionId = this.host.state().sessionId;
    if (!sessionId) return { aborted: false };
    return this.host.rpc().abort({ sessionId });
  }

  /** An edit of the visible queue (§7): remove, edit, promote ("send now"), clear. */
  async queueOp(op: QueueOpParams['op'], id?: string, text?: string): Promise<QueueResult | undefined> {
    const sessionId = this.host.state().sessionId;
    if (!sessionId || !this.host.features().has('queue')) return undefined;
    const params: QueueOpParams = { sessionId, op };
    if (id !== undefined) params.id = id;
    if (text !== undefined) params.text = text;
    const r = await this.host.rpc().queue(params);
    this.host.dispatch({ type: 'queue', queue: { steering: r.steering ?? [], followUp: r.followUp ?? [] } });
    return r;
  }

  /** pi/setMode for the current session (a new session first when there is none). */
  async setMode(mode: 'plan' | 'act'): Promise<void> {
    if (!this.host.features().has('planMode')) {
      void vscode.window.showInformationMessage('pi: this server has no plan mode; update pi-lsp.');
      return;
    }
    const sessionId = this.host.state().sessionId ?? (await this.hooks.newSession());
    const r = await this.host.rpc().setMode({ sessionId, mode });
    this.host.dispatch({ type: 'state', state: { sessionId, mode: r.mode } });
  }
}
