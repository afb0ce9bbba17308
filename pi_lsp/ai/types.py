"""Messages, content blocks, usage, models and contexts: pi-ai's data contracts.

Owns the typed data every layer above speaks. Pydantic models with snake_case attributes in
Python and camelCase on the wire (``model.model_dump(by_alias=True)`` / ``to_wire``).
Must not import anything of ours: ``ai/`` is the bottom layer.
"""

from __future__ import annotations

import time
from typing import Annotated, Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

StopReason: TypeAlias = Literal["stop", "length", "toolUse", "error", "aborted"]
InputKind: TypeAlias = Literal["text", "image"]


def now_ms() -> int:
    """Milliseconds since the epoch, as pi stamps its messages."""
    return int(time.time() * 1000)


class WireModel(BaseModel):
    """Base for everything that goes on the wire: camelCase aliases, extra fields kept."""

    model_config = ConfigDict(
        alias_generator=to_camel,
        populate_by_name=True,
        extra="allow",
        ser_json_inf_nan="constants",
    )

    def to_wire(self) -> dict[str, Any]:
        """The JSON-ready dict with camelCase keys and unset optionals left out."""
        return self.model_dump(by_alias=True, exclude_none=True, mode="json")


# --------------------------------------------------------------------------- content blocks


class TextContent(WireModel):
    type: Literal["text"] = "text"
    text: str
    text_signature: str | None = None


class ThinkingContent(WireModel):
    type: Literal["thinking"] = "thinking"
    thinking: str
    thinking_signature: str | None = None
    redacted: bool | None = None


class ImageContent(WireModel):
    type: Literal["image"] = "image"
    data: str  # base64
    mime_type: str


class ToolCall(WireModel):
    type: Literal["toolCall"] = "toolCall"
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)
    thought_signature: str | None = None


AssistantContent: TypeAlias = Annotated[
    TextContent | ThinkingContent | ToolCall, Field(discriminator="type")
]
UserContent: TypeAlias = Annotated[TextContent | ImageContent, Field(discriminator="type")]

# ----------------------------------------------------------------------------------- usage


class UsageCost(WireModel):
    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0
    total: float = 0.0


class Usage(WireModel):
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cache_write_1h: int | None = Field(default=None, alias="cacheWrite1h")
    reasoning: int | None = None
    """Reasoning (thinking) tokens: a part of ``output``, not added to it. Set (0 included)
    by the providers whose API reports them, ``None`` for the others (Pi's ``reasoning``)."""
    total_tokens: int = 0
    cost: UsageCost = Field(default_factory=UsageCost)


# -------------------------------------------------------------------------------- messages


class UserMessage(WireModel):
    role: Literal["user"] = "user"
    content: str | list[UserContent]
    timestamp: int = Field(default_factory=now_ms)


class AssistantMessage(WireModel):
    role: Literal["assistant"] = "assistant"
    content: list[AssistantContent] = Field(default_factory=list)
    api: str = ""
    provider: str = ""
    model: str = ""
    response_id: str | None = None
    usage: Usage = Field(default_factory=Usage)
    stop_reason: StopReason = "stop"
    error_message: str | None = None
    timestamp: int = Field(default_factory=now_ms)


class ToolResultMessage(WireModel):
    role: Literal["toolResult"] = "toolResult"
    tool_call_id: str
    tool_name: str
    content: list[UserContent] = Field(default_factory=list)
    details: Any = None
    is_error: bool = False
    timestamp: int = Field(default_factory=now_ms)


Message: TypeAlias = Annotated[
    UserMessage | AssistantMessage | ToolResultMessage, Field(discriminator="role")
]

# ----------------------------------------------------------------------------------- model


class ModelCost(WireModel):
    """Prices in dollars per million tokens."""

    input: float = 0.0
    output: float = 0.0
    cache_read: float = 0.0
    cache_write: float = 0.0


class OpenAICompat(WireModel):
    """Switches for OpenAI-compatible servers that differ from api.openai.com."""

    supports_usage_in_streaming: bool = True
    max_tokens_field: Literal["max_completion_tokens", "max_tokens"] = "max_completion_tokens"
    supports_developer_role: bool = False
    supports_reasoning_effort: bool = False
    supports_store: bool = False
    supports_strict_mode: bool = False
    requires_tool_result_name: bool = False
    requires_assistant_after_tool_result: bool = False
    requires_thinking_as_text: bool = False
    thinking_format: Literal["openai", "openrouter"] = "openai"
    """How the thinking level is sent: ``reasoning_effort`` (openai) or
    ``reasoning: {effort}`` (openrouter). Only with ``supports_reasoning_effort``."""


class AnthropicCompat(WireModel):
    """Switches for Anthropic-compatible endpoints (proxies, gateways)."""

    supports_long_cache_retention: bool | None = None
    """``ttl: "1h"`` allowed; ``None`` means only on api.anthropic.com."""
    supports_cache_control_on_tools: bool = True
    supports_temperature: bool = True
    force_adaptive_thinking: bool | None = None
    """Adaptive thinking + ``output_config.effort``; ``None`` means detect from the model id."""
    allow_empty_signature: bool = False


class OpenAIResponsesCompat(WireModel):
    """Switches for servers that speak the OpenAI Responses API (api.openai.com by default)."""

    supports_developer_role: bool = True
    send_session_id_header: bool = True
    """``session_id`` header with the session id (prompt-cache routing)."""
    supports_long_cache_retention: bool = True
    """``prompt_cache_retention: "24h"`` when the cache retention is ``long``."""


def _text_only() -> list[InputKind]:
    return ["text"]


class Model(WireModel):
    id: str
    name: str = ""
    api: str
    provider: str
    base_url: str = ""
    reasoning: bool = False
    input: list[InputKind] = Field(default_factory=_text_only)
    cost: ModelCost = Field(default_factory=ModelCost)
    context_window: int = 128_000
    max_tokens: int = 16_384
    headers: dict[str, str] | None = None
    compat: dict[str, Any] | None = None
    """Per-api switches (camelCase keys): ``OpenAICompat`` / ``AnthropicCompat`` fields."""
    thinking_level_map: dict[str, str | None] | None = None
    """Per-level provider values; ``None`` for a level marks it unsupported
    (docs/reference/pi.md#thinking-levels)."""

    def same_as(self, other: Model) -> bool:
        """Pi compares models by id and provider."""
        return self.id == other.id and self.provider == other.provider


# --------------------------------------------------------------------------------- context


class Tool(WireModel):
    """A tool as the model sees it: name, description, JSON-schema parameters."""

    name: str
    description: str
    parameters: dict[str, Any]


class Context(WireModel):
    system_prompt: str | None = None
    messages: list[Message] = Field(default_factory=list)
    tools: list[Tool] | None = None


def text_of(content: str | list[Any]) -> str:
    """The concatenated text of a message content (a string or text blocks)."""
    if isinstance(content, str):
        return content
    return "".join(block.text for block in content if isinstance(block, TextContent))
