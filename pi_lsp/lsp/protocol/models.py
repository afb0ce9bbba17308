"""The ``pi/*`` wire contract: one constant and one params/result model per method.

The names here are public API (docs/protocol.md; the editor plugins mirror them). Params are
validated at the handler boundary with ``parse_params``, which turns a pydantic error into an
InvalidParams JSON-RPC error naming the field. Results are built with ``to_wire``.
Must not import the session or agent modules.
"""

from __future__ import annotations

from typing import Any, Literal, TypeVar

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    ValidationError,
    model_serializer,
)
from pydantic.alias_generators import to_camel
from pygls.exceptions import JsonRpcInvalidParams

from ...ai.thinking import AgentThinkingLevel
from .methods import (  # re-exported: the names live with their models
    ABORT as ABORT,
)
from .methods import (
    ASK as ASK,
)
from .methods import (
    CMD_ABORT as CMD_ABORT,
)
from .methods import (
    CMD_FOLLOW_UP as CMD_FOLLOW_UP,
)
from .methods import (
    CMD_NEW_SESSION as CMD_NEW_SESSION,
)
from .methods import (
    CMD_PROMPT as CMD_PROMPT,
)
from .methods import (
    CMD_STEER as CMD_STEER,
)
from .methods import (
    COMMANDS as COMMANDS,
)
from .methods import (
    COMPACT as COMPACT,
)
from .methods import (
    DIAGNOSTICS as DIAGNOSTICS,
)
from .methods import (
    EVENT as EVENT,
)
from .methods import (
    FOLLOW_UP as FOLLOW_UP,
)
from .methods import (
    FORK_SESSION as FORK_SESSION,
)
from .methods import (
    LSP_QUERY as LSP_QUERY,
)
from .methods import (
    MCP as MCP,
)
from .methods import (
    MODELS as MODELS,
)
from .methods import (
    NEW_SESSION as NEW_SESSION,
)
from .methods import (
    PERMISSIONS as PERMISSIONS,
)
from .methods import (
    PROMPT as PROMPT,
)
from .methods import (
    QUEUE as QUEUE,
)
from .methods import (
    REPLAY as REPLAY,
)
from .methods import (
    REQUEST_PERMISSION as REQUEST_PERMISSION,
)
from .methods import (
    REQUESTS as REQUESTS,
)
from .methods import (
    RESUME_SESSION as RESUME_SESSION,
)
from .methods import (
    SAVE_DOCUMENTS as SAVE_DOCUMENTS,
)
from .methods import (
    SESSIONS as SESSIONS,
)
from .methods import (
    SET_MODE as SET_MODE,
)
from .methods import (
    SET_MODEL as SET_MODEL,
)
from .methods import (
    STATE as STATE,
)
from .methods import (
    STEER as STEER,
)

Delivered = Literal["prompt", "steer", "followUp", "interrupt"]
Mode = Literal["plan", "act"]
DeliverAs = Literal["steer", "followUp", "interrupt"]


class WireParams(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="ignore",
        use_attribute_docstrings=True,  # field docstrings become descriptions in the schema
    )

    def to_wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


class Position(WireParams):
    line: int = Field(ge=0)
    character: int = Field(ge=0)


class Range(WireParams):
    start: Position
    end: Position


class PromptContext(WireParams):
    uri: str
    range: Range | None = None


class ImageParam(WireParams):
    data: str
    """Base64 image data."""
    mime_type: str


class FileAttachment(WireParams):
    """A file, or a selection of it."""

    uri: str
    range: Range | None = None


class DiagnosticItem(WireParams):
    """One LSP ``Diagnostic`` as the editor has it (the fields the prompt shows)."""

    range: Range
    message: str
    severity: int | None = None
    source: str | None = None
    code: int | str | None = None


class DiagnosticsList(WireParams):
    uri: str
    items: list[DiagnosticItem]


class DiagnosticsAttachment(WireParams):
    diagnostics: DiagnosticsList


class ImageAttachment(WireParams):
    image: ImageParam


Attachment = FileAttachment | DiagnosticsAttachment | ImageAttachment


class PromptParams(WireParams):
    text: str
    session_id: str | None = None
    images: list[ImageParam] | None = None
    context: PromptContext | None = None
    attachments: list[Attachment] | None = None
    deliver_as: DeliverAs | None = None


class PromptResult(WireParams):
    session_id: str
    delivered: Delivered


class QueueParams(WireParams):
    """``pi/steer`` and ``pi/followUp``. Without ``sessionId``: the current session."""

    text: str
    session_id: str | None = None


class QueueOpParams(WireParams):
    """``pi/queue``: edit the visible queue of a session (docs/protocol.md#7-queue)."""

    session_id: str
    op: Literal["remove", "edit", "promote", "clear"]
    id: str | None = None
    text: str | None = None


class QueuedItem(WireParams):
    id: str
    text: str


class QueueResult(WireParams):
    steering: list[QueuedItem]
    follow_up: list[QueuedItem]


class ModelsParams(WireParams):
    """``pi/models``; ``sessionId`` (an extension) picks whose model is ``current``."""

    session_id: str | None = None


class ModelRef(WireParams):
    provider: str
    id: str


class ModelInfo(WireParams):
    provider: str
    id: str
    name: str
    context_window: int
    max_tokens: int
    reasoning: bool
    input: list[str]
    cost: dict[str, float]
    """$ per million tokens: ``{input, output, cacheRead, cacheWrite}``."""


class ModelsResult(WireParams):
    models: list[ModelInfo]
    current: ModelRef | None = None


class SetModelParams(WireParams):
    session_id: str
    provider: str | None = None
    model: str = Field(min_length=1)
    thinking_level: AgentThinkingLevel | None = None


class SessionParams(WireParams):
    """Params naming a session. ``pi/abort``, ``pi/state`` and ``pi/compact`` default to the
    current session when ``sessionId`` is left out (an extension of the contract)."""

    session_id: str | None = None


class RequiredSessionParams(WireParams):
    session_id: str


class AbortResult(WireParams):
    aborted: bool


class NewSessionParams(WireParams):
    pass


class SessionIdResult(WireParams):
    session_id: str


class SessionSummary(WireParams):
    session_id: str
    title: str
    updated_at: str
    message_count: int
    is_streaming: bool = False
    """A run is going in this session now (a reconnecting client re-attaches with
    ``pi/replay``)."""


class SessionsResult(WireParams):
    sessions: list[SessionSummary]


class LiveRun(WireParams):
    """Where the run a session has going began, for a client that attaches mid-run."""

    after_seq: int
    """The ``seq`` of this session's last ``pi/event`` before the run's ``agent_start``."""
    message_count: int
    """How many messages the transcript had when the run began."""


class ResumeResult(WireParams):
    session_id: str
    messages: list[dict[str, Any]]
    entry_ids: list[str | None] | None = None
    """Session-file entry id of each message (for ``pi/forkSession``); an extension."""
    forked_from: str | None = None
    """Set when the requested session was open in another process: ``session_id`` is a
    copy of it (the requested id), so the two never write one file."""
    live_run: LiveRun | None = None
    """Set while a run goes on (an extension): show the first ``messageCount`` messages, then
    ``pi/replay {afterSeq}`` gives the run as it streamed — nothing missing, nothing twice."""


class PendingQuestion(WireParams):
    tool_call_id: str
    question: str


class PendingPermission(WireParams):
    tool_call_id: str
    tool: str
    title: str
    child_session_id: str | None = None
    """Asked for a ``task`` child (docs/subagents.md): that child's session id (left out
    for the session's own questions)."""

    @model_serializer(mode="wrap")
    def _without_child(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(handler(self), "childSessionId", "child_session_id")


class TodoEntry(WireParams):
    id: str
    content: str
    status: Literal["pending", "in_progress", "completed"]


class UsageTotals(WireParams):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    reasoning: int = 0
    """Of ``output``: the reasoning tokens the providers reported."""
    children: UsageTotals | None = None
    """Of the totals: what the session's ``task`` children spent (docs/subagents.md); left
    out when it had none."""

    @model_serializer(mode="wrap")
    def _without_children(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        return _drop_none(handler(self), "children")


def _drop_none(data: dict[str, Any], *keys: str) -> dict[str, Any]:
    for key in keys:
        if key in data and data[key] is None:
            del data[key]
    return data


class SubagentSummary(WireParams):
    """One ``task`` child of a session (its latest record)."""

    child_session_id: str
    tool_call_id: str
    agent: str
    description: str
    state: Literal["queued", "running", "completed", "failed", "cancelled", "disconnected"]
    """``disconnected``: recorded as started, never ended (the process stopped meanwhile)."""
    usage: dict[str, Any] | None = None
    worktree: str | None = None


class StateResult(WireParams):
    """``pi/state``. Every field is always sent (``null`` when unknown): ``to_state_wire``."""

    session_id: str
    is_streaming: bool
    model: dict[str, Any] | None
    thinking_level: AgentThinkingLevel
    message_count: int
    pending_steering: int
    pending_follow_up: int
    pending_permissions: list[PendingPermission] = Field(default_factory=list)
    usage: UsageTotals = Field(default_factory=UsageTotals)
    context_tokens: int | None = None
    context_window: int | None = None
    save_error: str | None = None
    """Why the session file cannot be written now (``null`` while saving works)."""
    forked_from: str | None = None
    mode: Mode = "act"
    todo: list[TodoEntry] = Field(default_factory=list)
    pending_questions: list[PendingQuestion] = Field(default_factory=list)
    subagents: list[SubagentSummary] = Field(default_factory=list)
    """The session's ``task`` children as its file recorded them (a resumed session's too;
    docs/subagents.md); left out when it had none."""

    @model_serializer(mode="wrap")
    def _without_no_subagents(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        data: dict[str, Any] = handler(self)
        if not data.get("subagents"):
            data.pop("subagents", None)
        return data

    def to_state_wire(self) -> dict[str, Any]:
        return self.model_dump(by_alias=True, mode="json")

    def to_wire(self) -> dict[str, Any]:
        return self.to_state_wire()


class SetModeParams(WireParams):
    """``pi/setMode`` (docs/protocol.md#plan-mode-the-todo-list-and-questions)."""

    session_id: str
    mode: Mode


class SetModeResult(WireParams):
    mode: Mode
    follow_up: bool = False
    """Switching to ``act`` after a run in ``plan`` delivered the carry-out message."""


class AskOptionWire(WireParams):
    label: str
    description: str | None = None


class AskRequestParams(WireParams):
    """Server → client ``pi/ask``."""

    session_id: str
    tool_call_id: str
    question: str
    options: list[AskOptionWire]
    allow_free_text: bool
    multi_select: bool


class AskResult(WireParams):
    answers: list[str] = Field(default_factory=list)
    text: str | None = None
    cancelled: bool = False


class LspQueryParams(WireParams):
    """Server → client ``pi/lspQuery`` (docs/protocol.md#lsp-query): the ``lsp`` tool asks the
    editor's own language servers."""

    method: str
    """A standard LSP method: ``textDocument/definition``, ``textDocument/references``,
    ``textDocument/hover``, ``textDocument/documentSymbol``, ``workspace/symbol``,
    ``textDocument/implementation``, ``textDocument/typeDefinition``,
    ``textDocument/prepareCallHierarchy``, ``callHierarchy/incomingCalls``,
    ``callHierarchy/outgoingCalls``, ``textDocument/rename``, ``textDocument/diagnostic``."""
    params: dict[str, Any]
    """The method's standard params: positions 0-based, in UTF-16 code units."""


class LspQueryResult(WireParams):
    result: Any = Field(default=None, json_schema_extra={"tsType": "unknown"})
    """The method's standard result JSON (lists merged over the editor's servers; ``null``
    when none answered). A rename's ``WorkspaceEdit`` is returned, never applied."""
    position_encoding: Literal["utf-8", "utf-16", "utf-32"] | None = None
    """How the result's positions count (default ``utf-16``)."""


class PermissionsParams(WireParams):
    """``pi/permissions``: list the workspace's "always" rules, or revoke one."""

    op: Literal["list", "revoke"]
    id: str | None = None


class McpParams(WireParams):
    """``pi/mcp``: the effective MCP servers with their state, or restart one by name."""

    op: Literal["list", "restart"] = "list"
    name: str | None = None
    session_id: str | None = None
    """Whose prompt asks a trust question a restart needs (default: the current session)."""


class PermissionOption(WireParams):
    id: str
    label: str
    kind: Literal["allowOnce", "allowSession", "allowAlways", "deny"]


class RequestPermissionParams(WireParams):
    """Server → client ``pi/requestPermission`` (docs/protocol.md#8-permissions-that-stick)."""

    session_id: str
    tool_call_id: str
    tool: str
    title: str
    detail: str
    options: list[PermissionOption]
    child_session_id: str | None = None
    """Asked for a ``task`` child (docs/subagents.md): its session id (``sessionId`` stays
    the root's, the one the client knows; ``title`` starts with ``[agentName] ``)."""
    agent_name: str | None = None


class RequestPermissionResult(WireParams):
    option_id: str
    reason: str | None = None


class ReplayParams(WireParams):
    session_id: str
    after_seq: int = Field(default=0, ge=0)


class ReplayResult(WireParams):
    session_id: str
    events: list[dict[str, Any]]
    complete: bool


class ForkParams(WireParams):
    session_id: str
    entry_id: str


class CompactResult(WireParams):
    compacted: bool
    tokens_before: int
    tokens_after: int


class SaveDocumentsParams(WireParams):
    uris: list[str]


class SaveDocumentsResult(WireParams):
    saved: list[str] = Field(default_factory=list)


P = TypeVar("P", bound=WireParams)


def describe_error(exc: ValidationError) -> str:
    parts = []
    for err in exc.errors()[:3]:
        loc = ".".join(str(x) for x in err.get("loc", ())) or "params"
        parts.append(f"{loc}: {err.get('msg', 'invalid')}")
    return "; ".join(parts)


def parse_params(method: str, model: type[P], raw: Any) -> P:
    """Validate ``raw`` into ``model`` or raise InvalidParams naming the field."""
    if raw is None:
        raw = {}
    if not isinstance(raw, dict):
        raise JsonRpcInvalidParams(f"Invalid params for {method}: expected an object")
    try:
        return model.model_validate(raw)
    except ValidationError as exc:
        raise JsonRpcInvalidParams(f"Invalid params for {method}: {describe_error(exc)}") from None
