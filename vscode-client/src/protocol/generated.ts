// GENERATED FILE: do not edit. The wire types of the pi/* protocol, from
// docs/protocol.schema.json (itself generated from pi_lsp/lsp/protocol/models.py).
// Regenerate with `cd vscode-client && npm run gen:protocol`.

/**
 * Client → server pi/* notifications.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ClientNotificationMethod".
 */
export type ClientNotificationMethod = 'pi/diagnostics';
/**
 * Client → server pi/* requests.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "RequestMethod".
 */
export type RequestMethod =
  | 'pi/prompt'
  | 'pi/steer'
  | 'pi/followUp'
  | 'pi/abort'
  | 'pi/newSession'
  | 'pi/sessions'
  | 'pi/resumeSession'
  | 'pi/state'
  | 'pi/replay'
  | 'pi/forkSession'
  | 'pi/compact'
  | 'pi/queue'
  | 'pi/models'
  | 'pi/setModel'
  | 'pi/permissions'
  | 'pi/setMode'
  | 'pi/mcp'
  | 'pi/review'
  | 'pi/reviewDecision'
  | 'pi/checkpoints'
  | 'pi/restore'
  | 'pi/undoRestore'
  | 'pi/revertToolCall';
/**
 * Server → client pi/* notifications and requests.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ServerMethod".
 */
export type ServerMethod = 'pi/event' | 'pi/saveDocuments' | 'pi/requestPermission' | 'pi/ask';

/**
 * The pi/* wire contract of pi-lsp (docs/protocol.md), generated from pi_lsp/lsp/protocol/models.py by `python -m pi_lsp.lsp.protocol.schema`.
 */
export interface PiProtocol {
  AbortResult?: AbortResult;
  AskOptionWire?: AskOptionWire;
  AskRequestParams?: AskRequestParams;
  AskResult?: AskResult;
  ClientNotificationMethod?: ClientNotificationMethod;
  CompactResult?: CompactResult;
  DiagnosticItem?: DiagnosticItem;
  DiagnosticsAttachment?: DiagnosticsAttachment;
  DiagnosticsList?: DiagnosticsList;
  FileAttachment?: FileAttachment;
  ForkParams?: ForkParams;
  ImageAttachment?: ImageAttachment;
  ImageParam?: ImageParam;
  LiveRun?: LiveRun;
  McpParams?: McpParams;
  ModelInfo?: ModelInfo;
  ModelRef?: ModelRef;
  ModelsParams?: ModelsParams;
  ModelsResult?: ModelsResult;
  NewSessionParams?: NewSessionParams;
  PendingPermission?: PendingPermission;
  PendingQuestion?: PendingQuestion;
  PermissionOption?: PermissionOption;
  PermissionsParams?: PermissionsParams;
  Position?: Position;
  PromptContext?: PromptContext;
  PromptParams?: PromptParams;
  PromptResult?: PromptResult;
  QueueOpParams?: QueueOpParams;
  QueueParams?: QueueParams;
  QueueResult?: QueueResult;
  QueuedItem?: QueuedItem;
  Range?: Range;
  ReplayParams?: ReplayParams;
  ReplayResult?: ReplayResult;
  RequestMethod?: RequestMethod;
  RequestPermissionParams?: RequestPermissionParams;
  RequestPermissionResult?: RequestPermissionResult;
  RequiredSessionParams?: RequiredSessionParams;
  ResumeResult?: ResumeResult;
  SaveDocumentsParams?: SaveDocumentsParams;
  SaveDocumentsResult?: SaveDocumentsResult;
  ServerMethod?: ServerMethod;
  SessionIdResult?: SessionIdResult;
  SessionParams?: SessionParams;
  SessionSummary?: SessionSummary;
  SessionsResult?: SessionsResult;
  SetModeParams?: SetModeParams;
  SetModeResult?: SetModeResult;
  SetModelParams?: SetModelParams;
  StateResult?: StateResult;
  TodoEntry?: TodoEntry;
  UsageTotals?: UsageTotals;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "AbortResult".
 */
export interface AbortResult {
  aborted: boolean;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "AskOptionWire".
 */
export interface AskOptionWire {
  label: string;
  description?: string | null;
}
/**
 * Server → client ``pi/ask``.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "AskRequestParams".
 */
export interface AskRequestParams {
  sessionId: string;
  toolCallId: string;
  question: string;
  options: AskOptionWire[];
  allowFreeText: boolean;
  multiSelect: boolean;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "AskResult".
 */
export interface AskResult {
  answers?: string[];
  text?: string | null;
  cancelled?: boolean;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "CompactResult".
 */
export interface CompactResult {
  compacted: boolean;
  tokensBefore: number;
  tokensAfter: number;
}
/**
 * One LSP ``Diagnostic`` as the editor has it (the fields the prompt shows).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "DiagnosticItem".
 */
export interface DiagnosticItem {
  range: Range;
  message: string;
  severity?: number | null;
  source?: string | null;
  code?: number | string | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "Range".
 */
export interface Range {
  start: Position;
  end: Position;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "Position".
 */
export interface Position {
  line: number;
  character: number;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "DiagnosticsAttachment".
 */
export interface DiagnosticsAttachment {
  diagnostics: DiagnosticsList;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "DiagnosticsList".
 */
export interface DiagnosticsList {
  uri: string;
  items: DiagnosticItem[];
}
/**
 * A file, or a selection of it.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "FileAttachment".
 */
export interface FileAttachment {
  uri: string;
  range?: Range | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ForkParams".
 */
export interface ForkParams {
  sessionId: string;
  entryId: string;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ImageAttachment".
 */
export interface ImageAttachment {
  image: ImageParam;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ImageParam".
 */
export interface ImageParam {
  /**
   * Base64 image data.
   */
  data: string;
  mimeType: string;
}
/**
 * Where the run a session has going began, for a client that attaches mid-run.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "LiveRun".
 */
export interface LiveRun {
  /**
   * The ``seq`` of this session's last ``pi/event`` before the run's ``agent_start``.
   */
  afterSeq: number;
  /**
   * How many messages the transcript had when the run began.
   */
  messageCount: number;
}
/**
 * ``pi/mcp``: the effective MCP servers with their state, or restart one by name.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "McpParams".
 */
export interface McpParams {
  op?: 'list' | 'restart';
  name?: string | null;
  /**
   * Whose prompt asks a trust question a restart needs (default: the current session).
   */
  sessionId?: string | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ModelInfo".
 */
export interface ModelInfo {
  provider: string;
  id: string;
  name: string;
  contextWindow: number;
  maxTokens: number;
  reasoning: boolean;
  input: string[];
  /**
   * $ per million tokens: ``{input, output, cacheRead, cacheWrite}``.
   */
  cost: {
    [k: string]: number | undefined;
  };
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ModelRef".
 */
export interface ModelRef {
  provider: string;
  id: string;
}
/**
 * ``pi/models``; ``sessionId`` (an extension) picks whose model is ``current``.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ModelsParams".
 */
export interface ModelsParams {
  sessionId?: string | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ModelsResult".
 */
export interface ModelsResult {
  models: ModelInfo[];
  current?: ModelRef | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "NewSessionParams".
 */
export interface NewSessionParams {}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PendingPermission".
 */
export interface PendingPermission {
  toolCallId: string;
  tool: string;
  title: string;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PendingQuestion".
 */
export interface PendingQuestion {
  toolCallId: string;
  question: string;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PermissionOption".
 */
export interface PermissionOption {
  id: string;
  label: string;
  kind: 'allowOnce' | 'allowSession' | 'allowAlways' | 'deny';
}
/**
 * ``pi/permissions``: list the workspace's "always" rules, or revoke one.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PermissionsParams".
 */
export interface PermissionsParams {
  op: 'list' | 'revoke';
  id?: string | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PromptContext".
 */
export interface PromptContext {
  uri: string;
  range?: Range | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PromptParams".
 */
export interface PromptParams {
  text: string;
  sessionId?: string | null;
  images?: ImageParam[] | null;
  context?: PromptContext | null;
  attachments?: (FileAttachment | DiagnosticsAttachment | ImageAttachment)[] | null;
  deliverAs?: ('steer' | 'followUp' | 'interrupt') | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PromptResult".
 */
export interface PromptResult {
  sessionId: string;
  delivered: 'prompt' | 'steer' | 'followUp' | 'interrupt';
}
/**
 * ``pi/queue``: edit the visible queue of a session (docs/protocol.md#7-queue).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "QueueOpParams".
 */
export interface QueueOpParams {
  sessionId: string;
  op: 'remove' | 'edit' | 'promote' | 'clear';
  id?: string | null;
  text?: string | null;
}
/**
 * ``pi/steer`` and ``pi/followUp``. Without ``sessionId``: the current session.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "QueueParams".
 */
export interface QueueParams {
  text: string;
  sessionId?: string | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "QueueResult".
 */
export interface QueueResult {
  steering: QueuedItem[];
  followUp: QueuedItem[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "QueuedItem".
 */
export interface QueuedItem {
  id: string;
  text: string;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ReplayParams".
 */
export interface ReplayParams {
  sessionId: string;
  afterSeq?: number;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ReplayResult".
 */
export interface ReplayResult {
  sessionId: string;
  events: {
    [k: string]: unknown | undefined;
  }[];
  complete: boolean;
}
/**
 * Server → client ``pi/requestPermission`` (docs/protocol.md#8-permissions-that-stick).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "RequestPermissionParams".
 */
export interface RequestPermissionParams {
  sessionId: string;
  toolCallId: string;
  tool: string;
  title: string;
  detail: string;
  options: PermissionOption[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "RequestPermissionResult".
 */
export interface RequestPermissionResult {
  optionId: string;
  reason?: string | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "RequiredSessionParams".
 */
export interface RequiredSessionParams {
  sessionId: string;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ResumeResult".
 */
export interface ResumeResult {
  sessionId: string;
  messages: {
    [k: string]: unknown | undefined;
  }[];
  /**
   * Session-file entry id of each message (for ``pi/forkSession``); an extension.
   */
  entryIds?: (string | null)[] | null;
  /**
   * Set when the requested session was open in another process: ``session_id`` is a
   * copy of it (the requested id), so the two never write one file.
   */
  forkedFrom?: string | null;
  /**
   * Set while a run goes on (an extension): show the first ``messageCount`` messages, then
   * ``pi/replay {afterSeq}`` gives the run as it streamed — nothing missing, nothing twice.
   */
  liveRun?: LiveRun | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SaveDocumentsParams".
 */
export interface SaveDocumentsParams {
  uris: string[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SaveDocumentsResult".
 */
export interface SaveDocumentsResult {
  saved?: string[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SessionIdResult".
 */
export interface SessionIdResult {
  sessionId: string;
}
/**
 * Params naming a session. ``pi/abort``, ``pi/state`` and ``pi/compact`` default to the
 * current session when ``sessionId`` is left out (an extension of the contract).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SessionParams".
 */
export interface SessionParams {
  sessionId?: string | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SessionSummary".
 */
export interface SessionSummary {
  sessionId: string;
  title: string;
  updatedAt: string;
  messageCount: number;
  /**
   * A run is going in this session now (a reconnecting client re-attaches with
   * ``pi/replay``).
   */
  isStreaming?: boolean;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SessionsResult".
 */
export interface SessionsResult {
  sessions: SessionSummary[];
}
/**
 * ``pi/setMode`` (docs/protocol.md#plan-mode-the-todo-list-and-questions).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SetModeParams".
 */
export interface SetModeParams {
  sessionId: string;
  mode: 'plan' | 'act';
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SetModeResult".
 */
export interface SetModeResult {
  mode: 'plan' | 'act';
  /**
   * Switching to ``act`` after a run in ``plan`` delivered the carry-out message.
   */
  followUp?: boolean;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SetModelParams".
 */
export interface SetModelParams {
  sessionId: string;
  provider?: string | null;
  model: string;
  thinkingLevel?: ('off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh') | null;
}
/**
 * ``pi/state``. Every field is always sent (``null`` when unknown): ``to_state_wire``.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "StateResult".
 */
export interface StateResult {
  sessionId: string;
  isStreaming: boolean;
  model: {
    [k: string]: unknown | undefined;
  } | null;
  thinkingLevel: 'off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh';
  messageCount: number;
  pendingSteering: number;
  pendingFollowUp: number;
  pendingPermissions?: PendingPermission[];
  usage?: UsageTotals;
  contextTokens?: number | null;
  contextWindow?: number | null;
  /**
   * Why the session file cannot be written now (``null`` while saving works).
   */
  saveError?: string | null;
  forkedFrom?: string | null;
  mode?: 'plan' | 'act';
  todo?: TodoEntry[];
  pendingQuestions?: PendingQuestion[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "UsageTotals".
 */
export interface UsageTotals {
  input?: number;
  output?: number;
  cacheRead?: number;
  cacheWrite?: number;
  cost?: number;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "TodoEntry".
 */
export interface TodoEntry {
  id: string;
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}
