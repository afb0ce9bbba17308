"""The rest of the ``pi/*`` wire contract: the §8/§9/§14 params and results, the notification
payloads, the server's declared features, and the table naming each method's params and result.

``models`` holds the v1 requests and the shared parts; this module adds what used to be
described only in docs/protocol.md (review, checkpoints, permission rules, MCP, ``pi/event``,
``pi/diagnostics``) so the JSON Schema (``schema``) — and the clients' generated types — cover
every method. ``REQUEST_TYPES`` / ``SERVER_REQUEST_TYPES`` / ``NOTIFICATION_TYPES`` are the
method → models table the schema exports (``PiRequests`` …); a test checks it names every
method. Must not import the session or agent modules.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, RootModel

from ...resources.models import (
    ContextFile,
    Diagnostic,
    PromptFile,
    PromptTemplate,
    Skill,
    TrustInfo,
)
from ...wire_events import EventModel, WireEvent
from . import methods as m
from .features import FEATURES, PROTOCOL_VERSION
from .models import (
    AbortResult,
    AskRequestParams,
    AskResult,
    CompactResult,
    ForkParams,
    LspQueryParams,
    LspQueryResult,
    McpParams,
    ModelsParams,
    ModelsResult,
    NewSessionParams,
    PermissionsParams,
    PromptParams,
    PromptResult,
    QueueOpParams,
    QueueParams,
    QueueResult,
    Range,
    ReplayParams,
    ReplayResult,
    RequestPermissionParams,
    RequestPermissionResult,
    RequiredSessionParams,
    ResumeResult,
    SaveDocumentsParams,
    SaveDocumentsResult,
    SessionIdResult,
    SessionParams,
    SessionsResult,
    SetModelParams,
    SetModeParams,
    SetModeResult,
    StateResult,
    WireParams,
)

# ------------------------------------------------------------------ §9.1 review


class Decision(WireParams):
    hunk_id: str
    decision: Literal["keep", "undo"]
    reason: str | None = None
    """Why an undo: told to the model with its next call."""


class DecisionParams(WireParams):
    """``pi/reviewDecision``."""

    session_id: str
    decisions: list[Decision]


class HunkConflict(WireParams):
    hunk_id: str
    message: str


class DecisionResult(WireParams):
    applied: list[str]
    conflicts: list[HunkConflict]


class ReviewHunk(WireParams):
    id: str
    tool_call_id: str
    range: Range
    old_text: str
    new_text: str


class ReviewFile(WireParams):
    uri: str
    hunks: list[ReviewHunk]


class ReviewResult(WireParams):
    """``pi/review``: the session's pending hunks (the ``review_update`` event's snapshot)."""

    session_id: str
    files: list[ReviewFile]


# ------------------------------------------------------------------ code review (docs/review.md)


class CodeReviewTarget(WireParams):
    """What a code review looks at: the working tree against ``HEAD`` (``worktree``), ``HEAD``
    against its merge base with ``ref`` (``base``), or the commit ``ref`` (``commit``)."""

    kind: Literal["worktree", "base", "commit"] = "worktree"
    ref: str | None = None


class CodeReviewParams(WireParams):
    """``pi/codeReview`` (``pi.codeReview``): review a diff; the findings are published as
    diagnostics (``source: "pi review"``) and returned when the review is over."""

    target: CodeReviewTarget | None = None


class CodeReviewFinding(WireParams):
    id: str
    """Stable over re-runs; the diagnostic's ``data.findingId``."""
    path: str
    """Relative to the workspace root."""
    uri: str
    line: int
    """1-based, where the review found it (the diagnostic moves with later edits)."""
    end_line: int
    severity: Literal["error", "warning", "info"]
    title: str
    body: str = ""
    suggestion: str | None = None


class CodeReviewSkipped(WireParams):
    path: str
    reason: str


class CodeReviewResult(WireParams):
    target: CodeReviewTarget
    findings: list[CodeReviewFinding]
    reviewed: list[str]
    skipped: list[CodeReviewSkipped]
    notes: list[str]
    """What the user is told besides the findings (an empty diff, the split per file)."""
    summary: str
    error: str | None = None
    """The model request failed: the review is incomplete."""


class DismissFindingParams(WireParams):
    """``pi/dismissFinding`` (``pi.dismissFinding``, the "Dismiss" code action): clear one
    finding, remembered for this version of the file's text."""

    uri: str
    finding_id: str


class DismissFindingResult(WireParams):
    dismissed: bool


# ------------------------------------------------------------------ §9.5 checkpoints


class Checkpoint(WireParams):
    entry_id: str
    text: str
    timestamp: int | float
    files: list[str]
    """The files the agent changed after this checkpoint."""


class CheckpointsResult(WireParams):
    checkpoints: list[Checkpoint]


class RestoreParams(WireParams):
    session_id: str
    entry_id: str
    mode: Literal["code", "conversation", "both"] = "both"


class FileConflict(WireParams):
    uri: str
    message: str


class RestoreResult(WireParams):
    """``pi/restore``: ``sessionId`` is the session to continue in (the fork for
    ``conversation`` / ``both``); ``restoreId`` is null when nothing changed."""

    session_id: str
    restore_id: str | None = None
    reverted: list[str] = Field(default_factory=list)
    conflicts: list[FileConflict] = Field(default_factory=list)
    text: str | None = None
    """The message's text, for the input box (``conversation`` / ``both``)."""
    bash_ran: bool | None = None
    note: str | None = None

    def to_wire(self) -> dict[str, Any]:
        """``restoreId`` is always sent (``null``: nothing changed)."""
        return {**super().to_wire(), "restoreId": self.restore_id}


class UndoRestoreParams(WireParams):
    session_id: str
    restore_id: str


class UndoRestoreResult(WireParams):
    reapplied: list[str]
    conflicts: list[FileConflict]


class RevertToolCallParams(WireParams):
    session_id: str
    tool_call_id: str


class RevertToolCallResult(WireParams):
    session_id: str
    restore_id: str | None = None
    reverted: list[str] = Field(default_factory=list)
    conflicts: list[FileConflict] = Field(default_factory=list)

    def to_wire(self) -> dict[str, Any]:
        """``restoreId`` is always sent (``null``: nothing changed)."""
        return {**super().to_wire(), "restoreId": self.restore_id}


# ------------------------------------------------------------------ §8 rules, §14 MCP


class PermissionRule(WireParams):
    id: str
    tool: str
    pattern: str
    created_at: str


class PermissionsResult(WireParams):
    """``pi/permissions``: ``rules`` for ``list``, ``revoked`` for ``revoke``."""

    rules: list[PermissionRule] | None = None
    revoked: bool | None = None


class McpServerInfo(WireParams):
    name: str
    source: str
    transport: str
    target: str
    """The command line or the URL (never env or headers)."""
    state: Literal["stopped", "starting", "ready", "failed", "disabled"]
    tool_count: int
    message: str | None = None


class McpResult(WireParams):
    servers: list[McpServerInfo]
    problems: list[str] = Field(default_factory=list)
    sdk_installed: bool


# ------------------------------------------------------------------ background processes, export


class ProcessesParams(WireParams):
    """``pi/processes``: a session's background processes (``list``), or stop one (``kill``)."""

    session_id: str | None = None
    op: Literal["list", "kill"] = "list"
    id: str | None = None
    """The process to kill (``bg1`` …)."""


class ProcessInfo(WireParams):
    id: str
    command: str
    running: bool
    exit_code: int | None = None
    started_at: float
    """Seconds since the epoch."""
    uptime: float
    """Seconds it has run (until its end)."""
    last_lines: list[str] = Field(default_factory=list)
    log_path: str | None = None
    tool_call_id: str | None = None


class ProcessesResult(WireParams):
    processes: list[ProcessInfo]


class ExportParams(WireParams):
    """``pi/export``: write the session as a self-contained page (docs/sessions.md#export)."""

    session_id: str | None = None
    format: Literal["html", "markdown"] = "html"
    path: str | None = None
    """Where to write it (default: ``pi-session-<id>.html`` / ``.md`` in the temp dir)."""


class ExportResult(WireParams):
    path: str


class StateReply(StateResult):
    """``pi/state``'s result: the session's state and the MCP servers (§14)."""

    mcp: list[McpServerInfo] = Field(default_factory=list)

    def to_wire(self) -> dict[str, Any]:
        """The state with every field (``null`` when unknown), each server as ``pi/mcp``
        lists it (no ``message`` when there is none)."""
        out = self.model_dump(by_alias=True, mode="json", exclude={"mcp"})
        out["mcp"] = [server.to_wire() for server in self.mcp]
        return out


# ------------------------------------------------------------------ project context


class CommandInfo(WireParams):
    """One slash command (``name`` without the slash): the server's own (``builtin``:
    ``compact``, ``context``, ``reload`` — ``pi/compact``, ``pi/context``, ``pi/reload``), a
    prompt template, or a skill as ``skill:NAME``."""

    name: str
    description: str
    argument_hint: str | None = None
    source: Literal["builtin", "prompt", "skill"]
    path: str | None = None
    """The template's or the skill's file."""


class CommandsResult(WireParams):
    """``pi/commands``: what ``/`` completes, in the order to show."""

    session_id: str | None = None
    commands: list[CommandInfo]


class ContextResult(WireParams):
    """``pi/context`` / ``pi/reload``: what the session loaded (the ``resources_update``
    event's fields, docs/context.md)."""

    session_id: str | None = None
    cwd: str
    context_files: list[ContextFile]
    system_prompt: PromptFile | None = None
    append_system_prompt: list[PromptFile]
    skills: list[Skill]
    templates: list[PromptTemplate]
    diagnostics: list[Diagnostic]
    trust: TrustInfo

    def to_wire(self) -> dict[str, Any]:
        """``systemPrompt`` is always sent (``null``: none)."""
        out = self.model_dump(by_alias=True, mode="json")
        if out.get("sessionId") is None:
            out.pop("sessionId", None)
        return out


# ------------------------------------------------------------------ notifications


class ReviewUpdateEvent(EventModel):
    """The session's pending hunks changed (§9.1): the ``pi/review`` snapshot."""

    type: Literal["review_update"]
    files: list[ReviewFile]


class ProcessesUpdateEvent(EventModel):
    """A background process started or ended: the session's processes as ``pi/processes``
    lists them (not sent on output)."""

    type: Literal["processes_update"]
    processes: list[ProcessInfo]


class PiEvent(RootModel[WireEvent | ReviewUpdateEvent | ProcessesUpdateEvent]):
    """A ``pi/event``'s ``event``: its ``type`` names it (``wire_events`` declares each; a
    client ignores a kind it does not know, which a newer server may send)."""


class EventNotification(WireParams):
    """Server → client ``pi/event`` (docs/protocol.md §3)."""

    session_id: str
    seq: int
    event: PiEvent
    parent_session_id: str | None = None
    """A ``task`` child's event (``sessionId`` is the child's; docs/protocol.md#subagents)."""


class DiagnosticsNotification(WireParams):
    """Client → server ``pi/diagnostics`` (§9.4): an edited file's diagnostics."""

    uri: str
    version: int | None = None
    diagnostics: list[dict[str, Any]]


# ------------------------------------------------------------------ features


class PiFeatures(WireParams):
    """``capabilities.experimental.pi.features``: each feature the server has, with its
    version (a feature not listed is absent). docs/protocol.md#declared-features."""

    queue: int | None = None
    interrupt: int | None = None
    permission_rules: int | None = None
    review: int | None = None
    checkpoints: int | None = None
    attachments: int | None = None
    models: int | None = None
    reconnect: int | None = None
    mcp: int | None = None
    plan_mode: int | None = None
    todo: int | None = None
    ask: int | None = None
    context: int | None = None
    processes: int | None = None
    export: int | None = None


class PiServerCapabilities(WireParams):
    """``InitializeResult.capabilities.experimental.pi``."""

    protocol_version: int
    features: PiFeatures


def declared() -> dict[str, Any]:
    """What ``initialize`` declares (validated against the model, so the two cannot drift)."""
    caps = {"protocolVersion": PROTOCOL_VERSION, "features": dict(FEATURES)}
    return PiServerCapabilities.model_validate(caps).to_wire()


# ------------------------------------------------------------------ method table

Pair = tuple[type[WireParams], type[WireParams] | None]

REQUEST_TYPES: dict[str, Pair] = {
    m.PROMPT: (PromptParams, PromptResult),
    m.STEER: (QueueParams, PromptResult),
    m.FOLLOW_UP: (QueueParams, PromptResult),
    m.ABORT: (SessionParams, AbortResult),
    m.NEW_SESSION: (NewSessionParams, SessionIdResult),
    m.SESSIONS: (NewSessionParams, SessionsResult),
    m.RESUME_SESSION: (RequiredSessionParams, ResumeResult),
    m.STATE: (SessionParams, StateReply),
    m.REPLAY: (ReplayParams, ReplayResult),
    m.FORK_SESSION: (ForkParams, SessionIdResult),
    m.COMPACT: (SessionParams, CompactResult),
    m.QUEUE: (QueueOpParams, QueueResult),
    m.MODELS: (ModelsParams, ModelsResult),
    m.SET_MODEL: (SetModelParams, StateReply),
    m.PERMISSIONS: (PermissionsParams, PermissionsResult),
    m.SET_MODE: (SetModeParams, SetModeResult),
    m.MCP: (McpParams, McpResult),
    m.COMMANDS_LIST: (SessionParams, CommandsResult),
    m.CONTEXT: (SessionParams, ContextResult),
    m.RELOAD: (SessionParams, ContextResult),
    m.PROCESSES: (ProcessesParams, ProcessesResult),
    m.EXPORT: (ExportParams, ExportResult),
    m.REVIEW: (RequiredSessionParams, ReviewResult),
    m.REVIEW_DECISION: (DecisionParams, DecisionResult),
    m.CHECKPOINTS: (RequiredSessionParams, CheckpointsResult),
    m.RESTORE: (RestoreParams, RestoreResult),
    m.UNDO_RESTORE: (UndoRestoreParams, UndoRestoreResult),
    m.REVERT_TOOL_CALL: (RevertToolCallParams, RevertToolCallResult),
    m.CODE_REVIEW: (CodeReviewParams, CodeReviewResult),
    m.DISMISS_FINDING: (DismissFindingParams, DismissFindingResult),
}
"""Client → server requests: method → (params, result)."""

SERVER_REQUEST_TYPES: dict[str, Pair] = {
    m.SAVE_DOCUMENTS: (SaveDocumentsParams, SaveDocumentsResult),
    m.REQUEST_PERMISSION: (RequestPermissionParams, RequestPermissionResult),
    m.ASK: (AskRequestParams, AskResult),
    m.LSP_QUERY: (LspQueryParams, LspQueryResult),
}
"""Server → client requests: method → (params, result)."""

NOTIFICATION_TYPES: dict[str, Pair] = {
    m.EVENT: (EventNotification, None),
    m.DIAGNOSTICS: (DiagnosticsNotification, None),
}
"""Notifications (either direction): method → (params, None)."""
