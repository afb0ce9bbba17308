// What the server asks the user: `pi/requestPermission` (a permission card; the tool call waits)
// and `pi/ask` (the agent's question card; the run waits), their answers from the panel, and
// the workspace's "always allow" rules (`pi/permissions`).

import * as vscode from 'vscode';
import type { CancellationToken } from '../protocol/client';
import type {
  AskRequestParams,
  AskResult,
  PermissionOption,
  RequestPermissionParams,
  RequestPermissionResult,
} from '../protocol/generated';
import type { Host } from './host';

interface PendingPermission {
  resolve(answer: RequestPermissionResult): void;
  options: PermissionOption[];
}

interface PendingQuestion {
  resolve(answer: AskResult): void;
}

export class Asks {
  private permissionWaiters = new Map<string, PendingPermission>();
  private permissionCounter = 0;
  private questionWaiters = new Map<string, PendingQuestion>();
  private questionCounter = 0;

  constructor(private readonly host: Host) {}

  /** pi/requestPermission: a card in the transcript; the tool call waits for its answer. */
  askPermission(params: RequestPermissionParams, token: CancellationToken): Promise<RequestPermissionResult> {
    const requestKey = `r${++this.permissionCounter}`;
    const options = Array.isArray(params.options) ? params.options : [];
    return new Promise((resolve) => {
      const sub = token.onCancellationRequested(() => {
        sub.dispose();
        if (this.permissionWaiters.delete(requestKey)) {
          this.host.dispatch({ type: 'permissionDone', requestKey, withdrawn: true });
        }
        const deny = options.find((o) => o.kind === 'deny');
        resolve({ optionId: deny?.id ?? 'deny' });
      });
      this.permissionWaiters.set(requestKey, {
        options,
        resolve: (answer) => {
          sub.dispose();
          resolve(answer);
        },
      });
      this.host.dispatch({ type: 'permissionAsk', requestKey, params: { ...params } });
    });
  }

  answerPermission(requestKey: string, optionId: string, reason?: string): boolean {
    const w = this.permissionWaiters.get(requestKey);
    if (!w) return false;
    this.permissionWaiters.delete(requestKey);
    const label = w.options.find((o) => o.id === optionId)?.label ?? optionId;
    w.resolve(reason ? { optionId, reason } : { optionId });
    this.host.dispatch({ type: 'permissionDone', requestKey, answer: reason ? `${label}: ${reason}` : label });
    return true;
  }

  /**
   * Steering while a tool waits for permission answers it: the call is denied and the model
   * reads the new instruction as the reason (as Copilot cancels the pending call).
   */
  denyWaiting(text: string): void {
    for (const p of this.host.state().permissions) {
      const deny = this.permissionWaiters.get(p.requestKey)?.options.find((o) => o.kind === 'deny');
      if (deny) this.answerPermission(p.requestKey, deny.id, `The user sent a new instruction instead: ${text}`);
    }
  }

  /** pi/ask: a card in the transcript (never a modal); the run waits for its answer. */
  askQuestion(params: AskRequestParams, token: CancellationToken): Promise<AskResult> {
    const requestKey = `q${++this.questionCounter}`;
    return new Promise((resolve) => {
      const sub = token.onCancellationRequested(() => {
        sub.dispose();
        if (this.questionWaiters.delete(requestKey)) {
          this.host.dispatch({ type: 'questionDone', requestKey, status: 'withdrawn' });
        }
        resolve({ cancelled: true });
      });
      this.questionWaiters.set(requestKey, {
        resolve: (answer) => {
          sub.dispose();
          resolve(answer);
        },
      });
      this.host.dispatch({ type: 'questionAsk', requestKey, params: { ...params } });
    });
  }

  /** The user's answer to a question card (or its dismissal). */
  answerQuestion(requestKey: string, answers: string[], text?: string, cancelled?: boolean): boolean {
    const w = this.questionWaiters.get(requestKey);
    if (!w) return false;
    this.questionWaiters.delete(requestKey);
    if (cancelled) {
      w.resolve({ cancelled: true });
      this.host.dispatch({ type: 'questionDone', requestKey, status: 'dismissed' });
      return true;
    }
    const reply: AskResult = { answers };
    if (text) reply.text = text;
    w.resolve(reply);
    const shown = [...answers, ...(text ? [`“${text}”`] : [])].join(', ');
    this.host.dispatch({ type: 'questionDone', requestKey, status: 'answered', answer: shown });
    return true;
  }

  /** A message typed while the agent's question waits is its answer (an option, by its label, or free text). */
  answerWaitingQuestion(text: string): boolean {
    const waiting = this.host.state().questions[0];
    if (!waiting || !this.questionWaiters.has(waiting.requestKey)) return false;
    const label = waiting.options.find((o) => o.label.toLowerCase() === text.trim().toLowerCase())?.label;
    return this.answerQuestion(waiting.requestKey, label ? [label] : [], label ? undefined : text);
  }

  /** "pi: Manage 'always allow' rules": list the workspace's rules (§8) and revoke some. */
  async manageRules(): Promise<void> {
    if (!this.host.features().has('permissionRules')) {
      void vscode.window.showInformationMessage('pi: this server keeps no permission rules (update pi-lsp).');
      return;
    }
    const rules = (await this.host.rpc().permissions({ op: 'list' })).rules ?? [];
    if (rules.length === 0) {
      void vscode.window.showInformationMessage('pi: no "always allow" rules in this workspace.');
      return;
    }
    const picked = await vscode.window.showQuickPick(
      rules.map((rule) => ({ label: rule.pattern, description: rule.tool, detail: rule.createdAt, id: rule.id })),
      { canPickMany: true, title: 'pi: pick the rules to revoke' },
    );
    for (const p of picked ?? []) await this.host.rpc().permissions({ op: 'revoke', id: p.id });
  }

  /** Every waiting question and permission gets its "no" (the extension is going away). */
  dispose(): void {
    for (const w of this.permissionWaiters.values()) w.resolve({ optionId: 'deny' });
    this.permissionWaiters.clear();
    for (const w of this.questionWaiters.values()) w.resolve({ cancelled: true });
    this.questionWaiters.clear();
  }
}
