// pi/lspQuery (docs/protocol.md#lsp-query): the agent's `lsp` tool asks VS Code's own language
// servers through the `vscode.execute*Provider` commands. The document is opened (loaded, not
// shown) first so the providers see it; results are converted by ./toProtocol. A rename's edit is
// returned as data: the server applies it as one reviewed workspace/applyEdit.
import * as vscode from 'vscode';
import type { LspQueryParams as Params, LspQueryResult as Result } from '../protocol/client';
import * as lsp from './toProtocol';

interface TextDocumentPosition {
  textDocument?: { uri?: string };
  position?: { line: number; character: number };
  query?: string;
  newName?: string;
  item?: { data?: { piItem?: string } };
}

/** An error vscode-jsonrpc sends as is: code -32601 lets the server ask its own servers. */
export class MethodNotFound extends Error {
  readonly code = -32601;
}

const CALL_ITEMS_KEPT = 200;

export class LspQuery {
  private readonly items = new Map<string, vscode.CallHierarchyItem>();
  private next = 0;

  async answer(params: Params): Promise<Result> {
    const p = (params.params ?? {}) as TextDocumentPosition;
    const uri = p.textDocument?.uri ? vscode.Uri.parse(p.textDocument.uri) : undefined;
    if (uri) await vscode.workspace.openTextDocument(uri); // loads it; does not show it
    const pos = p.position ? new vscode.Position(p.position.line, p.position.character) : undefined;
    const at = (): [vscode.Uri, vscode.Position] => {
      if (!uri || !pos) throw new MethodNotFound(`${params.method} needs a document and a position`);
      return [uri, pos];
    };
    const run = <T>(command: string, ...args: unknown[]) => vscode.commands.executeCommand<T>(command, ...args);
    switch (params.method) {
      case 'textDocument/definition':
        return { result: lsp.locations(await run('vscode.executeDefinitionProvider', ...at())) };
      case 'textDocument/typeDefinition':
        return { result: lsp.locations(await run('vscode.executeTypeDefinitionProvider', ...at())) };
      case 'textDocument/implementation':
        return { result: lsp.locations(await run('vscode.executeImplementationProvider', ...at())) };
      case 'textDocument/references':
        return { result: lsp.locations(await run('vscode.executeReferenceProvider', ...at())) };
      case 'textDocument/hover':
        return { result: lsp.hover(await run('vscode.executeHoverProvider', ...at())) };
      case 'textDocument/documentSymbol':
        if (!uri) throw new MethodNotFound('documentSymbol needs a document');
        return { result: lsp.symbols(await run('vscode.executeDocumentSymbolProvider', uri)) };
      case 'workspace/symbol': {
        const found = await run<vscode.SymbolInformation[]>('vscode.executeWorkspaceSymbolProvider', p.query ?? '');
        return { result: (found ?? []).map(lsp.symbolInformation) };
      }
      case 'textDocument/prepareCallHierarchy': {
        const items = (await run<vscode.CallHierarchyItem[]>('vscode.prepareCallHierarchy', ...at())) ?? [];
        return { result: items.map((item) => lsp.callItem(item, this.keep(item))) };
      }
      case 'callHierarchy/incomingCalls':
      case 'callHierarchy/outgoingCalls': {
        const item = this.items.get(p.item?.data?.piItem ?? '');
        if (!item) throw new MethodNotFound('unknown call hierarchy item (prepare it first)');
        const incoming = params.method === 'callHierarchy/incomingCalls';
        const calls =
          (await run<(vscode.CallHierarchyIncomingCall | vscode.CallHierarchyOutgoingCall)[]>(
            incoming ? 'vscode.provideIncomingCalls' : 'vscode.provideOutgoingCalls',
            item,
          )) ?? [];
        return {
          result: calls.map((call) => {
            const other = incoming ? (call as vscode.CallHierarchyIncomingCall).from : (call as vscode.CallHierarchyOutgoingCall).to;
            return { [incoming ? 'from' : 'to']: lsp.callItem(other, this.keep(other)), fromRanges: call.fromRanges.map(lsp.range) };
          }),
        };
      }
      case 'textDocument/rename': {
        const edit = await run<vscode.WorkspaceEdit | undefined>('vscode.executeDocumentRenameProvider', ...at(), p.newName ?? '');
        return { result: edit ? lsp.workspaceEdit(edit.entries()) : null };
      }
      case 'textDocument/diagnostic':
        if (!uri) throw new MethodNotFound('diagnostic needs a document');
        return { result: lsp.diagnostics(vscode.languages.getDiagnostics(uri)) };
      default:
        throw new MethodNotFound(`${params.method} is not answered by this editor`);
    }
  }

  private keep(item: vscode.CallHierarchyItem): string {
    const id = `item-${this.next++}`;
    this.items.set(id, item);
    if (this.items.size > CALL_ITEMS_KEPT) this.items.delete(this.items.keys().next().value as string);
    return id;
  }
}
