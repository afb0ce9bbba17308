"""The agent loop's contracts: events, tools, hooks, context and loop configuration.

A Python rendering of pi-agent-core 0.80.2's ``types.ts``. Hooks may be sync or async (the
loop calls them and awaits the result when it is awaitable). Every hook documented "must not
raise" is a contract: the loop survives a violation (the run ends with an error message), but
the normal event sequence is lost. Must not import pygls/lsprotocol or anything above agent/.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, ClassVar, Generic, Literal, TypeAlias, TypeVar

from pydantic import BaseModel

from ..ai import (
    AbortSignal,
    AssistantMessage,
    AssistantMessageEvent,
    AssistantMessageEventStream,
    Context,
    ImageContent,
    Message,
    Model,
    StreamOptions,
    TextContent,
    ThinkingLevel,
    Tool,
    ToolCall,
    ToolResultMessage,
)
from ..ai.thinking import AgentThinkingLevel as AgentThinkingLevel  # re-exported
from .messages import AgentMessage

T = TypeVar("T")
MaybeAwaitable: TypeAlias = T | Awaitable[T]
ToolExecutionMode: TypeAlias = Literal["parallel", "sequential"]
QueueMode: TypeAlias = Literal["one-at-a-time", "all"]

# ------------------------------------------------------------------------------- tools


class ToolFailure(Exception):
    """Base of the errors a tool raises on purpose (a missing file, a stale edit, bad
    arguments): ``str(exc)`` is the text the model reads, and it is not logged. Any other
    exception out of a tool or a tool hook is a bug of ours: it still becomes the model-facing
    error text, and is logged with a traceback (``tool_execution``)."""


@dataclass(slots=True)
class AgentToolResult:
    """What a tool returns. ``terminate=True`` on every result of a batch ends the tool chain."""

    content: list[TextContent | ImageContent]
    details: Any = None
    terminate: bool | None = None


ToolUpdateCallback: TypeAlias = Callable[[AgentToolResult], MaybeAwaitable[None]]
P = TypeVar("P", bound=BaseModel)


class AgentTool(ABC, Generic[P]):
    """A tool the model can call.

    ``parameters`` is a pydantic model class: its JSON schema is what the model sees, and the
    loop validates (with lax coercion, e.g. ``"5"`` -> ``5``) the model's arguments into an
    instance of it before ``execute``. Tools signal failure by **raising**; the message becomes
    the error tool result the model reads.
    """

    name: ClassVar[str]
    label: ClassVar[str]
    description: ClassVar[str]
    parameters: ClassVar[type[BaseModel]]
    execution_mode: ClassVar[ToolExecutionMode | None] = None
    read_only: ClassVar[bool] = False
    """True when the tool never changes files or runs programs: plan mode keeps only these
    (and ``bash``, restricted to read-only commands)."""

    def prepare_arguments(self, args: Any) -> Any:
        """Shim raw arguments before validation (legacy shapes). Default: unchanged."""
        return args

    @abstractmethod
    async def execute(
        self,
        tool_call_id: str,
        params: P,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult: ...

    def to_tool(self) -> Tool:
        """The model-facing definition (name, description, JSON schema), cached per class."""
        cached: Tool | None = type(self).__dict__.get("_tool_definition")
        if cached is None:
            cached = Tool(
                name=self.name,
                description=self.description,
                parameters=clean_json_schema(self.parameters.model_json_schema(by_alias=True)),
            )
            type(self)._tool_definition = cached  # type: ignore[attr-defined]
        return cached


def clean_json_schema(schema: dict[str, Any]) -> dict[str, Any]:
    """Drop pydantic's ``title`` noise so the schema sent to the model is compact."""

    def walk(node: Any, in_properties: bool = False) -> Any:
        if isinstance(node, dict):
            return {
                k: walk(v, k == "properties")
                for k, v in node.items()
                if in_properties or k != "title"
            }
        if isinstance(node, list):
            return [walk(v) for v in node]
        return node

    cleaned: dict[str, Any] = walk(schema)
    return cleaned


# ----------------------------------------------------------------------------- context


@dataclass(slots=True)
class AgentContext:
    system_prompt: str
    messages: list[AgentMessage]
    tools: list[AgentTool[Any]] = field(default_factory=list)


# ------------------------------------------------------------------------------ events


@dataclass(slots=True)
class AgentStartEvent:
    type: Literal["agent_start"] = "agent_start"


@dataclass(slots=True)
class AgentEndEvent:
    messages: list[AgentMessage]
    type: Literal["agent_end"] = "agent_end"


@dataclass(slots=True)
class TurnStartEvent:
    type: Literal["turn_start"] = "turn_start"


@dataclass(slots=True)
class TurnEndEvent:
    message: AgentMessage
    tool_results: list[ToolResultMessage]
    type: Literal["turn_end"] = "turn_end"


@dataclass(slots=True)
class MessageStartEvent:
    message: AgentMessage
    type: Literal["message_start"] = "message_start"
    queued_id: str | None = None
    """Set when ``message`` is a queued steering / follow-up message being delivered."""
    delivered_as: Literal["steer", "followUp"] | None = None


@dataclass(slots=True)
class MessageUpdateEvent:
    message: AgentMessage
    assistant_message_event: AssistantMessageEvent
    type: Literal["message_update"] = "message_update"


@dataclass(slots=True)
class MessageEndEvent:
    message: AgentMessage
    type: Literal["message_end"] = "message_end"


@dataclass(slots=True)
class ToolExecutionStartEvent:
    tool_call_id: str
    tool_name: str
    args: Any
    type: Literal["tool_execution_start"] = "tool_execution_start"


@dataclass(slots=True)
class ToolExecutionUpdateEvent:
    tool_call_id: str
    tool_name: str
    args: Any
    partial_result: AgentToolResult
    type: Literal["tool_execution_update"] = "tool_execution_update"


@dataclass(slots=True)
class ToolExecutionEndEvent:
    tool_call_id: str
    tool_name: str
    result: AgentToolResult
    is_error: bool
    type: Literal["tool_execution_end"] = "tool_execution_end"


AgentEvent: TypeAlias = (
    AgentStartEvent
    | AgentEndEvent
    | TurnStartEvent
    | TurnEndEvent
    | MessageStartEvent
    | MessageUpdateEvent
    | MessageEndEvent
    | ToolExecutionStartEvent
    | ToolExecutionUpdateEvent
    | ToolExecutionEndEvent
)

AgentEventSink: TypeAlias = Callable[[AgentEvent], MaybeAwaitable[None]]

# ------------------------------------------------------------------------------- hooks


@dataclass(slots=True)
class BeforeToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    """The validated arguments (a pydantic model instance)."""
    context: AgentContext


@dataclass(slots=True)
class BeforeToolCallResult:
    block: bool = False
    reason: str | None = None


@dataclass(slots=True)
class AfterToolCallContext:
    assistant_message: AssistantMessage
    tool_call: ToolCall
    args: Any
    result: AgentToolResult
    is_error: bool
    context: AgentContext


@dataclass(slots=True)
class AfterToolCallResult:
    """Field-by-field override; ``None`` keeps the tool's value (no deep merge)."""

    content: list[TextContent | ImageContent] | None = None
    details: Any = None
    is_error: bool | None = None
    terminate: bool | None = None


@dataclass(slots=True)
class TurnContext:
    """What ``prepare_next_turn`` and ``should_stop_after_turn`` see after a turn."""

    message: AssistantMessage
    tool_results: list[ToolResultMessage]
    context: AgentContext
    new_messages: list[AgentMessage]


@dataclass(slots=True)
class AgentLoopTurnUpdate:
    """Returned by ``prepare_next_turn``: replacements for the rest of the run."""

    context: AgentContext | None = None
    model: Model | None = None
    thinking_level: AgentThinkingLevel | None = None


StreamFn: TypeAlias = Callable[
    [Model, Context, StreamOptions], MaybeAwaitable[AssistantMessageEventStream]
]
ConvertToLlm: TypeAlias = Callable[[Sequence[AgentMessage]], MaybeAwaitable[list[Message]]]
TransformContext: TypeAlias = Callable[
    [list[AgentMessage], AbortSignal | None], MaybeAwaitable[list[AgentMessage]]
]
GetApiKey: TypeAlias = Callable[[str], MaybeAwaitable[str | None]]
MessagePoll: TypeAlias = Callable[[], MaybeAwaitable[Sequence[AgentMessage]]]
BeforeToolCall: TypeAlias = Callable[
    [BeforeToolCallContext, AbortSignal | None], MaybeAwaitable[BeforeToolCallResult | None]
]
AfterToolCall: TypeAlias = Callable[
    [AfterToolCallContext, AbortSignal | None], MaybeAwaitable[AfterToolCallResult | None]
]
PrepareNextTurn: TypeAlias = Callable[[TurnContext], MaybeAwaitable[AgentLoopTurnUpdate | None]]
ShouldStopAfterTurn: TypeAlias = Callable[[TurnContext], MaybeAwaitable[bool]]


@dataclass(slots=True)
class AgentLoopConfig:
    """Configuration of one loop run (pi's ``AgentLoopConfig``).

    Contracts (must not raise): ``convert_to_llm``, ``transform_context``, ``get_api_key``,
    ``get_steering_messages``, ``get_follow_up_messages``, ``get_call_notes``,
    ``missing_tool_text``, ``prepare_next_turn``, ``should_stop_after_turn``. ``before_tool_call`` /
    ``after_tool_call`` may raise: the exception becomes an error tool result.
    """

    model: Model
    convert_to_llm: ConvertToLlm
    transform_context: TransformContext | None = None
    get_api_key: GetApiKey | None = None
    get_steering_messages: MessagePoll | None = None
    get_follow_up_messages: MessagePoll | None = None
    get_call_notes: MessagePoll | None = None
    """Not in pi: messages joined to the context right before each model call (after the
    steering poll), emitted and kept like steering messages — notes the product owes the
    model at its next call whenever they arose (pi-lsp's review notes)."""
    missing_tool_text: Callable[[str], str | None] | None = None
    """Not in pi: the error text for a call to a tool the context does not have (``None``,
    or a ``None`` answer, keeps pi's "Tool X not found") — plan mode says why write is gone."""
    prepare_next_turn: PrepareNextTurn | None = None
    should_stop_after_turn: ShouldStopAfterTurn | None = None
    before_tool_call: BeforeToolCall | None = None
    after_tool_call: AfterToolCall | None = None
    tool_execution: ToolExecutionMode = "parallel"
    reasoning: ThinkingLevel | None = None
    stream_options: StreamOptions = field(default_factory=StreamOptions)
    """Base provider options; the loop fills ``api_key``, ``signal`` and ``reasoning``."""


def tool_definitions(tools: Sequence[AgentTool[Any]]) -> list[Tool]:
    return [t.to_tool() for t in tools]
