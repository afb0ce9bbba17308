// Nudges: a notification when a permission or question waits, or a run ends, while the window is
// not focused or the panel is hidden (with the action: Allow / Open), and the warning when the
// context passes 80 % of the window. What deserves one is decided by src/nudgeRules.ts; the
// `pi.notify.*` settings turn each off.

import * as vscode from 'vscode';
import type { Controller } from './controller';
import { DEFAULT_NUDGES, newMemory, type Nudge, type NudgeSettings, nudgesFor } from './nudgeRules';

export function nudgeSettings(): NudgeSettings {
  const c = vscode.workspace.getConfiguration('pi.notify');
  const share = c.get<number>('contextWarning', DEFAULT_NUDGES.contextWarning);
  return {
    permission: c.get<boolean>('permission', true),
    question: c.get<boolean>('question', true),
    runEnd: c.get<boolean>('runEnd', true),
    contextWarning: typeof share === 'number' && share > 0 && share <= 1 ? share : 0,
  };
}

export class Nudges implements vscode.Disposable {
  private readonly memory = newMemory();
  private readonly subs: vscode.Disposable[] = [];
  /** Every nudge shown (the test API reads it). */
  readonly shown: Nudge[] = [];

  constructor(
    private readonly controller: Controller,
    private readonly panelVisible: () => boolean,
  ) {
    this.subs.push(
      controller.onDidChange(() => this.check()),
      vscode.window.onDidChangeWindowState(() => this.check()), // the user left with a question waiting
    );
  }

  /** The panel was shown or hidden. */
  visibilityChanged(): void {
    this.check();
  }

  private away(): boolean {
    return !vscode.window.state.focused || !this.panelVisible();
  }

  private check(): void {
    const away = this.away();
    for (const n of nudgesFor(this.controller.state(), this.memory, away, nudgeSettings())) {
      this.shown.push(n);
      this.controller.log(`nudge: ${n.kind} (window focused: ${vscode.window.state.focused}, panel visible: ${this.panelVisible()})`);
      void this.show(n);
    }
  }

  private async show(n: Nudge): Promise<void> {
    const open = () => vscode.commands.executeCommand('pi.focus');
    if (n.kind === 'permission') {
      const actions = n.allowOptionId ? ['Allow', 'Open'] : ['Open'];
      const picked = await vscode.window.showWarningMessage(n.text, ...actions);
      if (picked === 'Allow' && n.allowOptionId) {
        await this.controller.handleWebviewMessage({ type: 'permission', requestKey: n.requestKey, optionId: n.allowOptionId });
      } else if (picked === 'Open') await open();
    } else if (n.kind === 'question') {
      if ((await vscode.window.showInformationMessage(n.text, 'Open')) === 'Open') await open();
    } else if (n.kind === 'runEnd') {
      if ((await vscode.window.showInformationMessage(n.text, 'Open')) === 'Open') await open();
    } else if ((await vscode.window.showWarningMessage(n.text, 'Compact now')) === 'Compact now') {
      await this.controller.compact();
    }
  }

  dispose(): void {
    for (const s of this.subs) s.dispose();
  }
}
