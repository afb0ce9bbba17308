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
 * A ``pi/event``'s ``event``: its ``type`` names it (``wire_events`` declares each; a
 * client ignores a kind it does not know, which a newer server may send).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PiEvent".
 */
export type PiEvent =
  | AgentStartEvent
  | TurnStartEvent
  | MessageStartEvent
  | MessageUpdateEvent
  | MessageEndEvent
  | ToolExecutionStartEvent
  | ToolExecutionUpdateEvent
  | ToolExecutionEndEvent
  | TurnEndEvent
  | TurnEndRefsEvent
  | AgentEndEvent
  | AgentEndRefsEvent
  | RetryEvent
  | CompactionStartEvent
  | CompactionEndEvent
  | SessionSaveEvent
  | QueueUpdateEvent
  | TodoUpdateEvent
  | ModeUpdateEvent
  | ResourcesUpdateEvent
  | ResourceNoticeEvent
  | SubagentUpdateEvent
  | ReviewUpdateEvent
  | ProcessesUpdateEvent;
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
  | 'pi/commands'
  | 'pi/context'
  | 'pi/reload'
  | 'pi/processes'
  | 'pi/export'
  | 'pi/review'
  | 'pi/reviewDecision'
  | 'pi/checkpoints'
  | 'pi/restore'
  | 'pi/undoRestore'
  | 'pi/revertToolCall'
  | 'pi/codeReview'
  | 'pi/dismissFinding';
/**
 * Server → client pi/* notifications and requests.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ServerMethod".
 */
export type ServerMethod = 'pi/event' | 'pi/saveDocuments' | 'pi/requestPermission' | 'pi/ask' | 'pi/lspQuery';

/**
 * The pi/* wire contract of pi-lsp (docs/protocol.md), generated from pi_lsp/lsp/protocol/models.py and contract.py by `python -m pi_lsp.lsp.protocol.schema`.
 */
export interface PiProtocol {
  AbortResult?: AbortResult;
  AgentEndEvent?: AgentEndEvent;
  AgentEndRefsEvent?: AgentEndRefsEvent;
  AgentStartEvent?: AgentStartEvent;
  AskOptionWire?: AskOptionWire;
  AskRequestParams?: AskRequestParams;
  AskResult?: AskResult;
  Checkpoint?: Checkpoint;
  CheckpointsResult?: CheckpointsResult;
  ClientNotificationMethod?: ClientNotificationMethod;
  CodeReviewFinding?: CodeReviewFinding;
  CodeReviewParams?: CodeReviewParams;
  CodeReviewResult?: CodeReviewResult;
  CodeReviewSkipped?: CodeReviewSkipped;
  CodeReviewTarget?: CodeReviewTarget;
  CommandInfo?: CommandInfo;
  CommandsResult?: CommandsResult;
  CompactResult?: CompactResult;
  CompactionEndEvent?: CompactionEndEvent;
  CompactionStartEvent?: CompactionStartEvent;
  ContentBoundary?: ContentBoundary;
  ContentDelta?: ContentDelta;
  ContextFile?: ContextFile;
  ContextResult?: ContextResult;
  Decision?: Decision;
  DecisionParams?: DecisionParams;
  DecisionResult?: DecisionResult;
  Diagnostic?: Diagnostic;
  DiagnosticItem?: DiagnosticItem;
  DiagnosticsAttachment?: DiagnosticsAttachment;
  DiagnosticsList?: DiagnosticsList;
  DiagnosticsNotification?: DiagnosticsNotification;
  DismissFindingParams?: DismissFindingParams;
  DismissFindingResult?: DismissFindingResult;
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
  LspQueryParams?: LspQueryParams;
  LspQueryResult?: LspQueryResult;
  McpParams?: McpParams;
  McpResult?: McpResult;
  McpServerInfo?: McpServerInfo;
  MessageEndEvent?: MessageEndEvent;
  MessageStartEvent?: MessageStartEvent;
  MessageUpdateEvent?: MessageUpdateEvent;
  ModeUpdateEvent?: ModeUpdateEvent;
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
  PiEvent?: PiEvent;
  PiFeatures?: PiFeatures;
  PiNotifications?: PiNotifications;
  PiRequests?: PiRequests;
  PiServerCapabilities?: PiServerCapabilities;
  PiServerRequests?: PiServerRequests;
  Position?: Position;
  ProcessInfo?: ProcessInfo;
  ProcessesParams?: ProcessesParams;
  ProcessesResult?: ProcessesResult;
  ProcessesUpdateEvent?: ProcessesUpdateEvent;
  PromptContext?: PromptContext;
  PromptFile?: PromptFile;
  PromptParams?: PromptParams;
  PromptResult?: PromptResult;
  PromptTemplate?: PromptTemplate;
  QueueOpParams?: QueueOpParams;
  QueueParams?: QueueParams;
  QueueResult?: QueueResult;
  QueueUpdateEvent?: QueueUpdateEvent;
  QueuedItem?: QueuedItem;
  QueuedText?: QueuedText;
  Range?: Range;
  ReplayParams?: ReplayParams;
  ReplayResult?: ReplayResult;
  RequestMethod?: RequestMethod;
  RequestPermissionParams?: RequestPermissionParams;
  RequestPermissionResult?: RequestPermissionResult;
  RequiredSessionParams?: RequiredSessionParams;
  ResourceNoticeEvent?: ResourceNoticeEvent;
  ResourcesUpdateEvent?: ResourcesUpdateEvent;
  RestoreParams?: RestoreParams;
  RestoreResult?: RestoreResult;
  ResumeResult?: ResumeResult;
  RetryEvent?: RetryEvent;
  RevertToolCallParams?: RevertToolCallParams;
  RevertToolCallResult?: RevertToolCallResult;
  ReviewFile?: ReviewFile;
  ReviewHunk?: ReviewHunk;
  ReviewResult?: ReviewResult;
  ReviewUpdateEvent?: ReviewUpdateEvent;
  SaveDocumentsParams?: SaveDocumentsParams;
  SaveDocumentsResult?: SaveDocumentsResult;
  ServerMethod?: ServerMethod;
  SessionIdResult?: SessionIdResult;
  SessionParams?: SessionParams;
  SessionSaveEvent?: SessionSaveEvent;
  SessionSummary?: SessionSummary;
  SessionsResult?: SessionsResult;
  SetModeParams?: SetModeParams;
  SetModeResult?: SetModeResult;
  SetModelParams?: SetModelParams;
  Skill?: Skill;
  StateReply?: StateReply;
  StateResult?: StateResult;
  SubagentSummary?: SubagentSummary;
  SubagentUpdateEvent?: SubagentUpdateEvent;
  SubagentUsage?: SubagentUsage;
  TodoEntry?: TodoEntry;
  TodoItemWire?: TodoItemWire;
  TodoUpdateEvent?: TodoUpdateEvent;
  ToolCallDone?: ToolCallDone;
  ToolExecutionEndEvent?: ToolExecutionEndEvent;
  ToolExecutionStartEvent?: ToolExecutionStartEvent;
  ToolExecutionUpdateEvent?: ToolExecutionUpdateEvent;
  ToolResultWire?: ToolResultWire;
  TrustInfo?: TrustInfo;
  TurnEndEvent?: TurnEndEvent;
  TurnEndRefsEvent?: TurnEndRefsEvent;
  TurnStartEvent?: TurnStartEvent;
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
 * via the `definition` "AgentEndEvent".
 */
export interface AgentEndEvent {
  type: 'agent_end';
  /**
   * Every message this run added.
   */
  messages: {
    [k: string]: unknown | undefined;
  }[];
}
/**
 * ``agent_end`` in compact form (``compactEvents``).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "AgentEndRefsEvent".
 */
export interface AgentEndRefsEvent {
  type: 'agent_end';
  messageRefs: number[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "AgentStartEvent".
 */
export interface AgentStartEvent {
  type: 'agent_start';
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
 * via the `definition` "CodeReviewFinding".
 */
export interface CodeReviewFinding {
  /**
   * Stable over re-runs; the diagnostic's ``data.findingId``.
   */
  id: string;
  /**
   * Relative to the workspace root.
   */
  path: string;
  uri: string;
  /**
   * 1-based, where the review found it (the diagnostic moves with later edits).
   */
  line: number;
  endLine: number;
  severity: 'error' | 'warning' | 'info';
  title: string;
  body?: string;
  suggestion?: string | null;
}
/**
 * ``pi/codeReview`` (``pi.codeReview``): review a diff; the findings are published as
 * diagnostics (``source: "pi review"``) and returned when the review is over.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "CodeReviewParams".
 */
export interface CodeReviewParams {
  target?: CodeReviewTarget | null;
}
/**
 * What a code review looks at: the working tree against ``HEAD`` (``worktree``), ``HEAD``
 * against its merge base with ``ref`` (``base``), or the commit ``ref`` (``commit``).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "CodeReviewTarget".
 */
export interface CodeReviewTarget {
  kind?: 'worktree' | 'base' | 'commit';
  ref?: string | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "CodeReviewResult".
 */
export interface CodeReviewResult {
  target: CodeReviewTarget;
  findings: CodeReviewFinding[];
  reviewed: string[];
  skipped: CodeReviewSkipped[];
  /**
   * What the user is told besides the findings (an empty diff, the split per file).
   */
  notes: string[];
  summary: string;
  /**
   * The model request failed: the review is incomplete.
   */
  error?: string | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "CodeReviewSkipped".
 */
export interface CodeReviewSkipped {
  path: string;
  reason: string;
}
/**
 * One slash command (``name`` without the slash): the server's own (``builtin``:
 * ``compact``, ``context``, ``reload`` — ``pi/compact``, ``pi/context``, ``pi/reload``), a
 * prompt template, or a skill as ``skill:NAME``.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "CommandInfo".
 */
export interface CommandInfo {
  name: string;
  description: string;
  argumentHint?: string | null;
  source: 'builtin' | 'prompt' | 'skill';
  /**
   * The template's or the skill's file.
   */
  path?: string | null;
}
/**
 * ``pi/commands``: what ``/`` completes, in the order to show.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "CommandsResult".
 */
export interface CommandsResult {
  sessionId?: string | null;
  commands: CommandInfo[];
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
 * via the `definition` "CompactionEndEvent".
 */
export interface CompactionEndEvent {
  type: 'compaction_end';
  reason: 'manual' | 'threshold' | 'overflow';
  /**
   * Absent when the compaction failed early.
   */
  tokensBefore?: number | null;
  tokensAfter?: number | null;
  errorMessage?: string | null;
  willRetry: boolean;
  aborted: boolean;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "CompactionStartEvent".
 */
export interface CompactionStartEvent {
  type: 'compaction_start';
  reason: 'manual' | 'threshold' | 'overflow';
}
/**
 * A content block begins or ends (``toolcall_end`` is ``ToolCallDone``).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ContentBoundary".
 */
export interface ContentBoundary {
  type: 'text_start' | 'text_end' | 'thinking_start' | 'thinking_end' | 'toolcall_start';
  contentIndex: number;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ContentDelta".
 */
export interface ContentDelta {
  type: 'text_delta' | 'thinking_delta' | 'toolcall_delta';
  contentIndex: number;
  delta: string;
}
/**
 * One ``AGENTS.md`` / ``CLAUDE.md`` (…) as it goes into the system prompt.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ContextFile".
 */
export interface ContextFile {
  path: string;
  content: string;
  scope: 'global' | 'ancestor' | 'cwd';
  bytes: number;
  truncated?: boolean;
}
/**
 * ``pi/context`` / ``pi/reload``: what the session loaded (the ``resources_update``
 * event's fields, docs/context.md).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ContextResult".
 */
export interface ContextResult {
  sessionId?: string | null;
  cwd: string;
  contextFiles: ContextFile[];
  systemPrompt?: PromptFile | null;
  appendSystemPrompt: PromptFile[];
  skills: Skill[];
  templates: PromptTemplate[];
  diagnostics: Diagnostic[];
  trust: TrustInfo;
}
/**
 * ``SYSTEM.md`` or ``APPEND_SYSTEM.md`` (``path`` ``None``: text given inline).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PromptFile".
 */
export interface PromptFile {
  path: string | null;
  content: string;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "Skill".
 */
export interface Skill {
  name: string;
  description: string;
  path: string;
  baseDir: string;
  scope: 'user' | 'project' | 'path';
  modelInvocable?: boolean;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "PromptTemplate".
 */
export interface PromptTemplate {
  name: string;
  description: string;
  content: string;
  path: string;
  scope: 'user' | 'project' | 'path';
  argumentHint?: string | null;
}
/**
 * Something the loader skipped, cut or could not read (never fatal).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "Diagnostic".
 */
export interface Diagnostic {
  type: 'warning' | 'error' | 'collision';
  message: string;
  path: string;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "TrustInfo".
 */
export interface TrustInfo {
  status: 'trusted' | 'untrusted' | 'not-needed';
  ignoredPaths?: string[];
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
 * ``pi/dismissFinding`` (``pi.dismissFinding``, the "Dismiss" code action): clear one
 * finding, remembered for this version of the file's text.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "DismissFindingParams".
 */
export interface DismissFindingParams {
  uri: string;
  findingId: string;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "DismissFindingResult".
 */
export interface DismissFindingResult {
  dismissed: boolean;
}
/**
 * Server → client ``pi/event`` (docs/protocol.md §3).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "EventNotification".
 */
export interface EventNotification {
  sessionId: string;
  seq: number;
  event: PiEvent;
  /**
   * A ``task`` child's event (``sessionId`` is the child's; docs/protocol.md#subagents).
   */
  parentSessionId?: string | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "TurnStartEvent".
 */
export interface TurnStartEvent {
  type: 'turn_start';
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "MessageStartEvent".
 */
export interface MessageStartEvent {
  type: 'message_start';
  message: {
    [k: string]: unknown | undefined;
  };
  /**
   * The queue entry this user message came out of (with ``deliveredAs``).
   */
  queuedId?: string | null;
  deliveredAs?: ('steer' | 'followUp') | null;
}
/**
 * A streamed change of the assistant message: never the partial message itself.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "MessageUpdateEvent".
 */
export interface MessageUpdateEvent {
  type: 'message_update';
  assistantMessageEvent: ContentBoundary | ContentDelta | ToolCallDone;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ToolCallDone".
 */
export interface ToolCallDone {
  type: 'toolcall_end';
  contentIndex: number;
  /**
   * The parsed call: ``{type: "toolCall", id, name, arguments}``.
   */
  toolCall: {
    [k: string]: unknown | undefined;
  };
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "MessageEndEvent".
 */
export interface MessageEndEvent {
  type: 'message_end';
  message: {
    [k: string]: unknown | undefined;
  };
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ToolExecutionStartEvent".
 */
export interface ToolExecutionStartEvent {
  type: 'tool_execution_start';
  toolCallId: string;
  toolName: string;
  args: unknown;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ToolExecutionUpdateEvent".
 */
export interface ToolExecutionUpdateEvent {
  type: 'tool_execution_update';
  toolCallId: string;
  toolName: string;
  partialResult: ToolResultWire;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ToolResultWire".
 */
export interface ToolResultWire {
  content: unknown[];
  details?: unknown;
  terminate?: boolean | null;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ToolExecutionEndEvent".
 */
export interface ToolExecutionEndEvent {
  type: 'tool_execution_end';
  toolCallId: string;
  toolName: string;
  result: ToolResultWire;
  isError: boolean;
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "TurnEndEvent".
 */
export interface TurnEndEvent {
  type: 'turn_end';
  /**
   * The turn's assistant message.
   */
  message: {
    [k: string]: unknown | undefined;
  };
  toolResults: {
    [k: string]: unknown | undefined;
  }[];
}
/**
 * ``turn_end`` in compact form (``compactEvents``): the ``seq`` of each message's
 * ``message_end``.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "TurnEndRefsEvent".
 */
export interface TurnEndRefsEvent {
  type: 'turn_end';
  messageRef: number;
  toolResultRefs: number[];
}
/**
 * A transient provider error retried before any output of the reply.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "RetryEvent".
 */
export interface RetryEvent {
  type: 'retry';
  attempt: number;
  delayMs: number;
  errorMessage: string;
}
/**
 * Saving the session file started failing (``ok: false``) or works again.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SessionSaveEvent".
 */
export interface SessionSaveEvent {
  type: 'session_save';
  ok: boolean;
  errorMessage?: string | null;
}
/**
 * Both queues as they are now, oldest first.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "QueueUpdateEvent".
 */
export interface QueueUpdateEvent {
  type: 'queue_update';
  steering: QueuedText[];
  followUp: QueuedText[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "QueuedText".
 */
export interface QueuedText {
  id: string;
  text: string;
}
/**
 * The agent's todo list, whole.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "TodoUpdateEvent".
 */
export interface TodoUpdateEvent {
  type: 'todo_update';
  items: TodoItemWire[];
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "TodoItemWire".
 */
export interface TodoItemWire {
  id: string;
  content: string;
  status: 'pending' | 'in_progress' | 'completed';
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ModeUpdateEvent".
 */
export interface ModeUpdateEvent {
  type: 'mode_update';
  mode: 'plan' | 'act';
}
/**
 * The session's project context, skills and templates as loaded again (a file changed
 * before a prompt, a reload, a trust decision): ``resources.ResourcesPayload``'s fields.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ResourcesUpdateEvent".
 */
export interface ResourcesUpdateEvent {
  type: 'resources_update';
  cwd: string;
  contextFiles: ContextFile[];
  systemPrompt: PromptFile | null;
  appendSystemPrompt: PromptFile[];
  skills: Skill[];
  templates: PromptTemplate[];
  diagnostics: Diagnostic[];
  trust: TrustInfo;
}
/**
 * Something about the user's input for the user, not the model (an unknown ``/name``
 * sent as typed, a template given fewer arguments than it uses).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ResourceNoticeEvent".
 */
export interface ResourceNoticeEvent {
  type: 'resource_notice';
  message: string;
}
/**
 * A ``task`` child of this session: announced (``running``, or ``queued`` while it waits
 * for a slot) before any of its events, then exactly one terminal state (``completed`` |
 * ``failed`` | ``cancelled``) after its last event (docs/subagents.md#what-each-client-shows).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SubagentUpdateEvent".
 */
export interface SubagentUpdateEvent {
  type: 'subagent_update';
  childSessionId: string;
  toolCallId: string;
  agent: string;
  description: string;
  state: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled';
  usage?: SubagentUsage | null;
  worktree?: string | null;
}
/**
 * What a ``task`` child spent (docs/subagents.md).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SubagentUsage".
 */
export interface SubagentUsage {
  turns: number;
  input: number;
  output: number;
  cacheRead: number;
  cacheWrite: number;
  reasoning?: number;
  cost: number;
}
/**
 * The session's pending hunks changed (§9.1): the ``pi/review`` snapshot.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ReviewUpdateEvent".
 */
export interface ReviewUpdateEvent {
  type: 'review_update';
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
 * A background process started or ended: the session's processes as ``pi/processes``
 * lists them (not sent on output).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "ProcessesUpdateEvent".
 */
export interface ProcessesUpdateEvent {
  type: 'processes_update';
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
 * Server → client ``pi/lspQuery`` (docs/protocol.md#lsp-query): the ``lsp`` tool asks the
 * editor's own language servers.
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "LspQueryParams".
 */
export interface LspQueryParams {
  /**
   * A standard LSP method: ``textDocument/definition``, ``textDocument/references``,
   * ``textDocument/hover``, ``textDocument/documentSymbol``, ``workspace/symbol``,
   * ``textDocument/implementation``, ``textDocument/typeDefinition``,
   * ``textDocument/prepareCallHierarchy``, ``callHierarchy/incomingCalls``,
   * ``callHierarchy/outgoingCalls``, ``textDocument/rename``, ``textDocument/diagnostic``.
   */
  method: string;
  /**
   * The method's standard params: positions 0-based, in UTF-16 code units.
   */
  params: {
    [k: string]: unknown | undefined;
  };
}
/**
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "LspQueryResult".
 */
export interface LspQueryResult {
  /**
   * The method's standard result JSON (lists merged over the editor's servers; ``null``
   * when none answered). A rename's ``WorkspaceEdit`` is returned, never applied.
   */
  result?: unknown;
  /**
   * How the result's positions count (default ``utf-16``).
   */
  positionEncoding?: ('utf-8' | 'utf-16' | 'utf-32') | null;
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
  /**
   * Asked for a ``task`` child (docs/subagents.md): that child's session id (left out
   * for the session's own questions).
   */
  childSessionId?: string | null;
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
  context?: number | null;
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
  'pi/commands': {
    params: SessionParams;
    result: CommandsResult;
  };
  'pi/context': {
    params: SessionParams;
    result: ContextResult;
  };
  'pi/reload': {
    params: SessionParams;
    result: ContextResult;
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
  'pi/codeReview': {
    params: CodeReviewParams;
    result: CodeReviewResult;
  };
  'pi/dismissFinding': {
    params: DismissFindingParams;
    result: DismissFindingResult;
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
  /**
   * The session's ``task`` children as its file recorded them (a resumed session's too;
   * docs/subagents.md); left out when it had none.
   */
  subagents?: SubagentSummary[];
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
  /**
   * Of ``output``: the reasoning tokens the providers reported.
   */
  reasoning?: number;
  /**
   * Of the totals: what the session's ``task`` children spent (docs/subagents.md); left
   * out when it had none.
   */
  children?: UsageTotals | null;
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
 * One ``task`` child of a session (its latest record).
 *
 * This interface was referenced by `PiProtocol`'s JSON-Schema
 * via the `definition` "SubagentSummary".
 */
export interface SubagentSummary {
  childSessionId: string;
  toolCallId: string;
  agent: string;
  description: string;
  /**
   * ``disconnected``: recorded as started, never ended (the process stopped meanwhile).
   */
  state: 'queued' | 'running' | 'completed' | 'failed' | 'cancelled' | 'disconnected';
  usage?: {
    [k: string]: unknown | undefined;
  } | null;
  worktree?: string | null;
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
  'pi/lspQuery': {
    params: LspQueryParams;
    result: LspQueryResult;
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
  /**
   * Asked for a ``task`` child (docs/subagents.md): its session id (``sessionId`` stays
   * the root's, the one the client knows; ``title`` starts with ``[agentName] ``).
   */
  childSessionId?: string | null;
  agentName?: string | null;
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
  /**
   * The session's ``task`` children as its file recorded them (a resumed session's too;
   * docs/subagents.md); left out when it had none.
   */
  subagents?: SubagentSummary[];
}
