// GENERATED FILE: do not edit. The wire types of the pi/* protocol, from
// docs/protocol.schema.json (itself generated from pi_lsp/lsp/protocol/models.py, contract.py).
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
  | 'pi/processes'
  | 'pi/export'
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
 * The pi/* wire contract of pi-lsp (docs/protocol.md), generated from pi_lsp/lsp/protocol/models.py and contract.py by `python -m pi_lsp.lsp.protocol.schema`.
 */
export interface PiProtocol {
  AbortResult?: AbortResult;
  AskOptionWire?: AskOptionWire;
  AskRequestParams?: AskRequestParams;
  AskResult?: AskResult;
  Checkpoint?: Checkpoint;
  CheckpointsResult?: CheckpointsResult;
  ClientNotificationMethod?: ClientNotificationMethod;
  CompactResult?: CompactResult;
  Decision?: Decision;
  DecisionParams?: DecisionParams;
  DecisionResult?: DecisionResult;
  DiagnosticItem?: DiagnosticItem;
  DiagnosticsAttachment?: DiagnosticsAttachment;
  DiagnosticsList?: DiagnosticsList;
  DiagnosticsNotification?: DiagnosticsNotification;
  EventNotification?: EventNotification;
  ExportParams?: ExportParams;
  ExportResult?: ExportResult;
  FileAttachment?: FileAttachment;
  FileConflict?: FileConflict;
  ForkParams?: ForkParams;
  HunkConflict?: HunkConflict;
  ImageAttachment?: ImageAttachment;
  ImageParam?: ImageParam;
  LiveRun?: LiveRun;
  McpParams?: McpParams;
  McpResult?: McpResult;
  McpServerInfo?: McpServerInfo;
  ModelInfo?: ModelInfo;
  ModelRef?: ModelRef;
  ModelsParams?: ModelsParams;
  ModelsResult?: ModelsResult;
  NewSessionParams?: NewSessionParams;
  PendingPermission?: PendingPermission;
  PendingQuestion?: PendingQuestion;
  PermissionOption?: PermissionOption;
  PermissionRule?: PermissionRule;
  PermissionsParams?: PermissionsParams;
  PermissionsResult?: PermissionsResult;
  PiFeatures?: PiFeatures;
  PiNotifications?: PiNotifications;
  PiRequests?: PiRequests;
  PiServerCapabilities?: PiServerCapabilities;
  PiServerRequests?: PiServerRequests;
  Position?: Position;
  ProcessInfo?: ProcessInfo;
  ProcessesParams?: ProcessesParams;
  ProcessesResult?: ProcessesResult;
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
  RestoreParams?: RestoreParams;
  RestoreResult?: RestoreResult;
  ResumeResult?: ResumeResult;
  RevertToolCallParams?: RevertToolCallParams;
  RevertToolCallResult?: RevertToolCallResult;
  ReviewFile?: ReviewFile;
  ReviewHunk?: ReviewHunk;
  ReviewResult?: ReviewResult;
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
  StateReply?: StateReply;
  StateResult?: StateResult;
  TodoEntry?: TodoEntry;
  UndoRestoreParams?: UndoRestoreParams;
  UndoRestoreResult?: UndoRestoreResult;
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
 * via the `definition` "Checkpoint".
 */
export interface Checkpoint {
  entryId: string;
  text: string;
  timestamp: number;
  /**
   * The files the agent changed after this checkpoint.
   */
  files: string[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "CheckpointsResult".
 */
export interface CheckpointsResult {
  checkpoints: Checkpoint[];
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
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "Decision".
 */
export interface Decision {
  hunkId: string;
  decision: 'keep' | 'undo';
  /**
   * Why an undo: told to the model with its next call.
   */
  reason?: string | null;
}
/**
 * ``pi/reviewDecision``.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "DecisionParams".
 */
export interface DecisionParams {
  sessionId: string;
  decisions: Decision[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "DecisionResult".
 */
export interface DecisionResult {
  applied: string[];
  conflicts: HunkConflict[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "HunkConflict".
 */
export interface HunkConflict {
  hunkId: string;
  message: string;
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
 * Client → server ``pi/diagnostics`` (§9.4): an edited file's diagnostics.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "DiagnosticsNotification".
 */
export interface DiagnosticsNotification {
  uri: string;
  version?: number | null;
  diagnostics: {
    [k: string]: unknown | undefined;
  }[];
}
/**
 * Server → client ``pi/event`` (docs/protocol.md §3): ``event`` is loosely typed on
 * purpose (its ``type`` names it; new kinds may come).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "EventNotification".
 */
export interface EventNotification {
  sessionId: string;
  seq: number;
  event: {
    [k: string]: unknown | undefined;
  };
}
/**
 * ``pi/export``: write the session as a self-contained page (docs/sessions.md#export).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ExportParams".
 */
export interface ExportParams {
  sessionId?: string | null;
  format?: 'html' | 'markdown';
  /**
   * Where to write it (default: ``pi-session-<id>.html`` / ``.md`` in the temp dir).
   */
  path?: string | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ExportResult".
 */
export interface ExportResult {
  path: string;
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
 * via the `definition` "FileConflict".
 */
export interface FileConflict {
  uri: string;
  message: string;
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
 * via the `definition` "McpResult".
 */
export interface McpResult {
  servers: McpServerInfo[];
  problems?: string[];
  sdkInstalled: boolean;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "McpServerInfo".
 */
export interface McpServerInfo {
  name: string;
  source: string;
  transport: string;
  /**
   * The command line or the URL (never env or headers).
   */
  target: string;
  state: 'stopped' | 'starting' | 'ready' | 'failed' | 'disabled';
  toolCount: number;
  message?: string | null;
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
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PermissionRule".
 */
export interface PermissionRule {
  id: string;
  tool: string;
  pattern: string;
  createdAt: string;
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
 * ``pi/permissions``: ``rules`` for ``list``, ``revoked`` for ``revoke``.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PermissionsResult".
 */
export interface PermissionsResult {
  rules?: PermissionRule[] | null;
  revoked?: boolean | null;
}
/**
 * ``capabilities.experimental.pi.features``: each feature the server has, with its
 * version (a feature not listed is absent). docs/protocol.md#declared-features.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PiFeatures".
 */
export interface PiFeatures {
  queue?: number | null;
  interrupt?: number | null;
  permissionRules?: number | null;
  review?: number | null;
  checkpoints?: number | null;
  attachments?: number | null;
  models?: number | null;
  reconnect?: number | null;
  mcp?: number | null;
  planMode?: number | null;
  todo?: number | null;
  ask?: number | null;
  processes?: number | null;
  export?: number | null;
}
/**
 * Notifications: params.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PiNotifications".
 */
export interface PiNotifications {
  'pi/event': {
    params: EventNotification;
  };
  'pi/diagnostics': {
    params: DiagnosticsNotification;
  };
}
/**
 * Client → server requests: params and result.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PiRequests".
 */
export interface PiRequests {
  'pi/prompt': {
    params: PromptParams;
    result: PromptResult;
  };
  'pi/steer': {
    params: QueueParams;
    result: PromptResult;
  };
  'pi/followUp': {
    params: QueueParams;
    result: PromptResult;
  };
  'pi/abort': {
    params: SessionParams;
    result: AbortResult;
  };
  'pi/newSession': {
    params: NewSessionParams;
    result: SessionIdResult;
  };
  'pi/sessions': {
    params: NewSessionParams;
    result: SessionsResult;
  };
  'pi/resumeSession': {
    params: RequiredSessionParams;
    result: ResumeResult;
  };
  'pi/state': {
    params: SessionParams;
    result: StateReply;
  };
  'pi/replay': {
    params: ReplayParams;
    result: ReplayResult;
  };
  'pi/forkSession': {
    params: ForkParams;
    result: SessionIdResult;
  };
  'pi/compact': {
    params: SessionParams;
    result: CompactResult;
  };
  'pi/queue': {
    params: QueueOpParams;
    result: QueueResult;
  };
  'pi/models': {
    params: ModelsParams;
    result: ModelsResult;
  };
  'pi/setModel': {
    params: SetModelParams;
    result: StateReply;
  };
  'pi/permissions': {
    params: PermissionsParams;
    result: PermissionsResult;
  };
  'pi/setMode': {
    params: SetModeParams;
    result: SetModeResult;
  };
  'pi/mcp': {
    params: McpParams;
    result: McpResult;
  };
  'pi/processes': {
    params: ProcessesParams;
    result: ProcessesResult;
  };
  'pi/export': {
    params: ExportParams;
    result: ExportResult;
  };
  'pi/review': {
    params: RequiredSessionParams;
    result: ReviewResult;
  };
  'pi/reviewDecision': {
    params: DecisionParams;
    result: DecisionResult;
  };
  'pi/checkpoints': {
    params: RequiredSessionParams;
    result: CheckpointsResult;
  };
  'pi/restore': {
    params: RestoreParams;
    result: RestoreResult;
  };
  'pi/undoRestore': {
    params: UndoRestoreParams;
    result: UndoRestoreResult;
  };
  'pi/revertToolCall': {
    params: RevertToolCallParams;
    result: RevertToolCallResult;
  };
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
 * via the `definition` "PromptContext".
 */
export interface PromptContext {
  uri: string;
  range?: Range | null;
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
 * via the `definition` "SessionIdResult".
 */
export interface SessionIdResult {
  sessionId: string;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SessionsResult".
 */
export interface SessionsResult {
  sessions: SessionSummary[];
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
 * ``pi/state``'s result: the session's state and the MCP servers (§14).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "StateReply".
 */
export interface StateReply {
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
  mcp?: McpServerInfo[];
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
 * via the `definition` "SetModelParams".
 */
export interface SetModelParams {
  sessionId: string;
  provider?: string | null;
  model: string;
  thinkingLevel?: ('off' | 'minimal' | 'low' | 'medium' | 'high' | 'xhigh') | null;
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
 * ``pi/processes``: a session's background processes (``list``), or stop one (``kill``).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ProcessesParams".
 */
export interface ProcessesParams {
  sessionId?: string | null;
  op?: 'list' | 'kill';
  /**
   * The process to kill (``bg1`` …).
   */
  id?: string | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ProcessesResult".
 */
export interface ProcessesResult {
  processes: ProcessInfo[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ProcessInfo".
 */
export interface ProcessInfo {
  id: string;
  command: string;
  running: boolean;
  exitCode?: number | null;
  /**
   * Seconds since the epoch.
   */
  startedAt: number;
  /**
   * Seconds it has run (until its end).
   */
  uptime: number;
  lastLines?: string[];
  logPath?: string | null;
  toolCallId?: string | null;
}
/**
 * ``pi/review``: the session's pending hunks (the ``review_update`` event's snapshot).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ReviewResult".
 */
export interface ReviewResult {
  sessionId: string;
  files: ReviewFile[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ReviewFile".
 */
export interface ReviewFile {
  uri: string;
  hunks: ReviewHunk[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ReviewHunk".
 */
export interface ReviewHunk {
  id: string;
  toolCallId: string;
  range: Range;
  oldText: string;
  newText: string;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "RestoreParams".
 */
export interface RestoreParams {
  sessionId: string;
  entryId: string;
  mode?: 'code' | 'conversation' | 'both';
}
/**
 * ``pi/restore``: ``sessionId`` is the session to continue in (the fork for
 * ``conversation`` / ``both``); ``restoreId`` is null when nothing changed.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "RestoreResult".
 */
export interface RestoreResult {
  sessionId: string;
  restoreId?: string | null;
  reverted?: string[];
  conflicts?: FileConflict[];
  /**
   * The message's text, for the input box (``conversation`` / ``both``).
   */
  text?: string | null;
  bashRan?: boolean | null;
  note?: string | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "UndoRestoreParams".
 */
export interface UndoRestoreParams {
  sessionId: string;
  restoreId: string;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "UndoRestoreResult".
 */
export interface UndoRestoreResult {
  reapplied: string[];
  conflicts: FileConflict[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "RevertToolCallParams".
 */
export interface RevertToolCallParams {
  sessionId: string;
  toolCallId: string;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "RevertToolCallResult".
 */
export interface RevertToolCallResult {
  sessionId: string;
  restoreId?: string | null;
  reverted?: string[];
  conflicts?: FileConflict[];
}
/**
 * ``InitializeResult.capabilities.experimental.pi``.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PiServerCapabilities".
 */
export interface PiServerCapabilities {
  protocolVersion: number;
  features: PiFeatures;
}
/**
 * Server → client requests: params and result.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PiServerRequests".
 */
export interface PiServerRequests {
  'pi/saveDocuments': {
    params: SaveDocumentsParams;
    result: SaveDocumentsResult;
  };
  'pi/requestPermission': {
    params: RequestPermissionParams;
    result: RequestPermissionResult;
  };
  'pi/ask': {
    params: AskRequestParams;
    result: AskResult;
  };
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
