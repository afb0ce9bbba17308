// Review (docs/protocol.md §9.1–§9.4): keep / undo decisions on the agent's hunks, the pending
// hunks pulled when a session is shown, the files the server asks us to save, and the
// diagnostics of the files the agent edited, forwarded to the server.

import * as vscode from 'vscode';
import type { LanguageClient } from 'vscode-languageclient/node';
import type { WireNotification } from '../model/reducer';
import type { SaveDocumentsParams, SaveDocumentsResult } from '../protocol/generated';
import { FINDING_SOURCE } from '../model/findings';
import type { Host } from './host';

export type Decision = { hunkId: string; decision: 'keep' | 'undo'; reason?: string };

export class ReviewControl {
  private touchedFiles = new Set<string>();

  constructor(
    private readonly host: Host,
    private readonly client: () => LanguageClient | undefined,
  ) {}

  async decide(decisions: Decision[]): Promise<unknown> {
    const sessionId = this.host.state().sessionId;
    if (!sessionId) return undefined;
    const r = await this.host.rpc().reviewDecision({ sessionId, decisions });
    for (const c of r.conflicts ?? []) {
      this.host.dispatch({ type: 'notice', level: 'warning', topic: 'info', text: `Could not undo a change: ${c.message}` });
    }
    // A review_update event follows; ask anyway so a missed event cannot leave stale lenses.
    await this.pull(sessionId);
    return r;
  }

  /** The session's pending hunks (when the server has review). */
  async pull(sessionId: string): Promise<void> {
    if (!this.host.features().has('review')) return;
    const rv = await this.host.rpc().review({ sessionId });
    this.host.dispatch({ type: 'review', files: rv.files ?? [] });
  }

  /** Server → client: save these documents (the server never writes a file open here itself). */
  async saveDocuments(params: SaveDocumentsParams): Promise<SaveDocumentsResult> {
    const saved: string[] = [];
    for (const uri of params.uris ?? []) {
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri);
      this.touchedFiles.add(uri);
      if (!doc) continue;
      if (!doc.isDirty || (await doc.save())) saved.push(uri);
    }
    return { saved };
  }

  /** An edit or write starts: its file's diagnostics are forwarded from now on (§9.4). */
  noteEvent(note: WireNotification): void {
    const ev = note.event;
    if (ev.type !== 'tool_execution_start' || (ev.toolName !== 'edit' && ev.toolName !== 'write')) return;
    const args = (ev.args ?? {}) as Record<string, unknown>;
    if (this.touchedFiles.size > 2000) this.touchedFiles.clear();
    const p = typeof args.path === 'string' ? args.path : undefined;
    const root = vscode.workspace.workspaceFolders?.[0]?.uri;
    if (p && root) {
      const uri = p.startsWith('/') ? vscode.Uri.file(p) : vscode.Uri.joinPath(root, p);
      this.touchedFiles.add(uri.toString());
    }
  }

  forwardDiagnostics(uris: readonly vscode.Uri[]): void {
    const c = this.client();
    if (!c || !c.isRunning()) return;
    const rpc = this.host.rpc();
    for (const u of uris) {
      const key = u.toString();
      if (!this.touchedFiles.has(key)) continue;
      const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === key);
      const diagnostics = vscode.languages
        .getDiagnostics(u)
        .filter((d) => d.source !== FINDING_SOURCE) // pi's own review findings are not news to it
        .map((d) => ({ ...c.code2ProtocolConverter.asDiagnostic(d) }));
      void rpc.diagnostics({ uri: key, version: doc?.version, diagnostics });
    }
  }

  /** Files the agent touched in this window (diagnostics are forwarded for them). */
  touched(): ReadonlySet<string> {
    return this.touchedFiles;
  }
}
