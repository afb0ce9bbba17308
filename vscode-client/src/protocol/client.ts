// The typed client of the pi/* protocol: one function per method, params and results from the
// generated wire types (`generated.ts`, from the server's models). This module (with
// `generated.ts`) is the only place the extension spells a `pi/…` method name; everything else
// calls these functions. A server change that alters a method's params or result changes the
// generated types, and `npm run typecheck` then fails where the extension relied on the old shape.

import type {
  ClientNotificationMethod,
  PiNotifications,
  PiRequests,
  PiServerRequests,
  RequestMethod,
  ServerMethod,
} from './generated';

/** Every client → server request, by the function that sends it. */
export const REQUESTS = {
  prompt: 'pi/prompt',
  steer: 'pi/steer',
  followUp: 'pi/followUp',
  abort: 'pi/abort',
  newSession: 'pi/newSession',
  sessions: 'pi/sessions',
  resumeSession: 'pi/resumeSession',
  state: 'pi/state',
  replay: 'pi/replay',
  forkSession: 'pi/forkSession',
  compact: 'pi/compact',
  queue: 'pi/queue',
  models: 'pi/models',
  setModel: 'pi/setModel',
  permissions: 'pi/permissions',
  setMode: 'pi/setMode',
  mcp: 'pi/mcp',
  review: 'pi/review',
  reviewDecision: 'pi/reviewDecision',
  checkpoints: 'pi/checkpoints',
  restore: 'pi/restore',
  undoRestore: 'pi/undoRestore',
  revertToolCall: 'pi/revertToolCall',
  codeReview: 'pi/codeReview',
  dismissFinding: 'pi/dismissFinding',
  commands: 'pi/commands',
  context: 'pi/context',
  reload: 'pi/reload',
  processes: 'pi/processes',
  export: 'pi/export',
} as const satisfies Record<string, RequestMethod>;

/** Server → client messages and the client's notification. */
export const SERVER_MESSAGES = {
  event: 'pi/event',
  saveDocuments: 'pi/saveDocuments',
  requestPermission: 'pi/requestPermission',
  ask: 'pi/ask',
  lspQuery: 'pi/lspQuery',
} as const satisfies Record<string, ServerMethod>;
export const DIAGNOSTICS: ClientNotificationMethod = 'pi/diagnostics';

// A method the server adds and this table lacks fails the typecheck here.
type Missing<All, Have> = Exclude<All, Have>;
const allRequests: [Missing<RequestMethod, (typeof REQUESTS)[keyof typeof REQUESTS]>] extends [never] ? true : never = true;
const allServerMessages: [Missing<ServerMethod, (typeof SERVER_MESSAGES)[keyof typeof SERVER_MESSAGES]>] extends [never]
  ? true
  : never = true;
void allRequests;
void allServerMessages;

/** What a registration returns (vscode's and vscode-jsonrpc's `Disposable` are ones). */
export interface Disposable {
  dispose(): unknown;
}

/** A request's cancellation as vscode-jsonrpc hands it to a handler. */
export interface CancellationToken {
  readonly isCancellationRequested: boolean;
  onCancellationRequested(listener: () => unknown): Disposable;
}

type Params<M extends RequestMethod> = PiRequests[M]['params'];
type Result<M extends RequestMethod> = PiRequests[M]['result'];
type ServerRequest = keyof PiServerRequests;
type HandlerResult<T> = T | Promise<T>;

/** What the typed client needs of a JSON-RPC connection (a `LanguageClient` is one). */
export interface Connection {
  sendRequest<R>(method: string, params: unknown): Promise<R>;
  sendNotification(method: string, params: unknown): Promise<void>;
  onNotification(method: string, handler: (params: unknown) => void): Disposable;
  onRequest(method: string, handler: (params: unknown, token: CancellationToken) => unknown): Disposable;
  isRunning(): boolean;
}

/** pi/lspQuery's params and result (docs/protocol.md#lsp-query). */
export type LspQueryParams = PiServerRequests['pi/lspQuery']['params'];
export type LspQueryResult = PiServerRequests['pi/lspQuery']['result'];

/** The server side of what the extension handles: one handler per server → client message. */
export interface ServerHandlers {
  event(params: PiNotifications['pi/event']['params']): void;
  saveDocuments(params: PiServerRequests['pi/saveDocuments']['params']): HandlerResult<PiServerRequests['pi/saveDocuments']['result']>;
  requestPermission(
    params: PiServerRequests['pi/requestPermission']['params'],
    token: CancellationToken,
  ): HandlerResult<PiServerRequests['pi/requestPermission']['result']>;
  ask(params: PiServerRequests['pi/ask']['params'], token: CancellationToken): HandlerResult<PiServerRequests['pi/ask']['result']>;
  lspQuery(params: PiServerRequests['pi/lspQuery']['params']): HandlerResult<PiServerRequests['pi/lspQuery']['result']>;
}

/** The pi/* requests of one connection, each a typed function. */
export class PiClient {
  constructor(private readonly connection: Connection) {}

  private send<M extends RequestMethod>(method: M, params: Params<M>): Promise<Result<M>> {
    return this.connection.sendRequest<Result<M>>(method, params);
  }

  // §2 runs and sessions
  prompt = (p: Params<'pi/prompt'>) => this.send(REQUESTS.prompt, p);
  steer = (p: Params<'pi/steer'>) => this.send(REQUESTS.steer, p);
  followUp = (p: Params<'pi/followUp'>) => this.send(REQUESTS.followUp, p);
  abort = (p: Params<'pi/abort'>) => this.send(REQUESTS.abort, p);
  newSession = (p: Params<'pi/newSession'> = {}) => this.send(REQUESTS.newSession, p);
  sessions = (p: Params<'pi/sessions'> = {}) => this.send(REQUESTS.sessions, p);
  resumeSession = (p: Params<'pi/resumeSession'>) => this.send(REQUESTS.resumeSession, p);
  state = (p: Params<'pi/state'>) => this.send(REQUESTS.state, p);
  replay = (p: Params<'pi/replay'>) => this.send(REQUESTS.replay, p);
  forkSession = (p: Params<'pi/forkSession'>) => this.send(REQUESTS.forkSession, p);
  compact = (p: Params<'pi/compact'>) => this.send(REQUESTS.compact, p);
  // §7 queue, §8 rules, §11 models, §14 MCP, v3 plan mode
  queue = (p: Params<'pi/queue'>) => this.send(REQUESTS.queue, p);
  models = (p: Params<'pi/models'>) => this.send(REQUESTS.models, p);
  setModel = (p: Params<'pi/setModel'>) => this.send(REQUESTS.setModel, p);
  permissions = (p: Params<'pi/permissions'>) => this.send(REQUESTS.permissions, p);
  setMode = (p: Params<'pi/setMode'>) => this.send(REQUESTS.setMode, p);
  mcp = (p: Params<'pi/mcp'>) => this.send(REQUESTS.mcp, p);
  // §9 review and checkpoints
  review = (p: Params<'pi/review'>) => this.send(REQUESTS.review, p);
  reviewDecision = (p: Params<'pi/reviewDecision'>) => this.send(REQUESTS.reviewDecision, p);
  checkpoints = (p: Params<'pi/checkpoints'>) => this.send(REQUESTS.checkpoints, p);
  restore = (p: Params<'pi/restore'>) => this.send(REQUESTS.restore, p);
  undoRestore = (p: Params<'pi/undoRestore'>) => this.send(REQUESTS.undoRestore, p);
  revertToolCall = (p: Params<'pi/revertToolCall'>) => this.send(REQUESTS.revertToolCall, p);
  // code review (docs/review.md): findings as diagnostics with source "pi review"
  codeReview = (p: Params<'pi/codeReview'> = {}) => this.send(REQUESTS.codeReview, p);
  dismissFinding = (p: Params<'pi/dismissFinding'>) => this.send(REQUESTS.dismissFinding, p);
  // project context (docs/context.md)
  commands = (p: Params<'pi/commands'> = {}) => this.send(REQUESTS.commands, p);
  context = (p: Params<'pi/context'> = {}) => this.send(REQUESTS.context, p);
  reload = (p: Params<'pi/reload'> = {}) => this.send(REQUESTS.reload, p);
  // background processes, export
  processes = (p: Params<'pi/processes'>) => this.send(REQUESTS.processes, p);
  export = (p: Params<'pi/export'>) => this.send(REQUESTS.export, p);

  /** §9.4: an edited file's diagnostics. */
  diagnostics(p: PiNotifications['pi/diagnostics']['params']): Promise<void> {
    return this.connection.sendNotification(DIAGNOSTICS, p);
  }
}

/** Register the handlers of every server → client message; dispose the result to remove them. */
export function handleServerMessages(connection: Connection, h: ServerHandlers): Disposable[] {
  const request = <M extends ServerRequest>(
    method: M,
    fn: (p: PiServerRequests[M]['params'], token: CancellationToken) => HandlerResult<PiServerRequests[M]['result']>,
  ) => connection.onRequest(method, fn as (params: unknown, token: CancellationToken) => unknown);
  return [
    connection.onNotification(SERVER_MESSAGES.event, (p) => h.event(p as PiNotifications['pi/event']['params'])),
    request(SERVER_MESSAGES.saveDocuments, (p) => h.saveDocuments(p)),
    request(SERVER_MESSAGES.requestPermission, (p, token) => h.requestPermission(p, token)),
    request(SERVER_MESSAGES.ask, (p, token) => h.ask(p, token)),
    request(SERVER_MESSAGES.lspQuery, (p) => h.lspQuery(p)),
  ];
}
