// What the panel's views share: the view model (advanced by the host's reducer on the same
// actions), the panel settings and model list from the host, what survives a reload of the
// webview (vscode.getState), the channel to the host, and the repaint request.

import { initialState } from '../model/reducer';
import type { ViewModel } from '../model/types';
import type { ModelRow, PanelSettings, WebviewMessage } from '../protocol/messages';

declare function acquireVsCodeApi(): {
  postMessage(m: unknown): void;
  getState(): unknown;
  setState(s: unknown): void;
};

const vscode = acquireVsCodeApi();

/** Kept across reloads of the webview. */
export interface Persisted {
  draft?: string;
  /** The plan checklist above the input is folded to one line. */
  planCollapsed?: boolean;
}

export const app: {
  vm: ViewModel;
  settings: PanelSettings;
  models: ModelRow[];
  persisted: Persisted;
} = {
  vm: initialState(),
  settings: { enterAction: 'steer', hasApiKey: false, edits: 'apply' },
  models: [],
  persisted: (vscode.getState() as Persisted | undefined) ?? {},
};

/** A message to the extension host (which validates it again: parseWebviewMessage). */
export function post(msg: WebviewMessage): void {
  vscode.postMessage(msg);
}

export function persist(patch: Partial<Persisted>): void {
  app.persisted = { ...app.persisted, ...patch };
  vscode.setState(app.persisted);
}

let repaint: () => void = () => {};

/** main.ts: what `invalidate` runs (marks the panel dirty and schedules a frame). */
export function onInvalidate(fn: () => void): void {
  repaint = fn;
}

/** Something a view shows changed outside the view model: repaint at the next frame. */
export function invalidate(): void {
  repaint();
}
