"""AgentState: what an ``Agent`` knows between and during runs (pi's ``AgentState``).

Assigning ``tools`` or ``messages`` copies the top-level list; reading returns the live list.
``is_streaming`` is read-only (the Agent owns it). During a run the transcript is a reduction
over the loop's events (``message_end`` appends), never a copy of the loop's context.
Must not import pygls/lsprotocol or anything above agent/.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..ai import Model, ModelCost
from .messages import AgentMessage
from .types import AgentThinkingLevel, AgentTool

#: pi's placeholder model for an Agent constructed without one.
DEFAULT_MODEL = Model(
    id="unknown",
    name="unknown",
    api="unknown",
    provider="unknown",
    base_url="",
    reasoning=False,
    input=[],
    cost=ModelCost(),
    context_window=0,
    max_tokens=0,
)


class AgentState:
    __slots__ = (
        "_is_streaming",
        "_messages",
        "_tools",
        "error_message",
        "model",
        "pending_tool_calls",
        "streaming_message",
        "system_prompt",
        "thinking_level",
    )

    def __init__(
        self,
        *,
        system_prompt: str = "",
        model: Model | None = None,
        thinking_level: AgentThinkingLevel = "off",
        tools: Sequence[AgentTool[Any]] = (),
        messages: Sequence[AgentMessage] = (),
    ) -> None:
        self.system_prompt = system_prompt
        self.model: Model = model if model is not None else DEFAULT_MODEL
        self.thinking_level: AgentThinkingLevel = thinking_level
        self._tools: list[AgentTool[Any]] = list(tools)
        self._messages: list[AgentMessage] = list(messages)
        self._is_streaming = False
        self.streaming_message: AgentMessage | None = None
        self.pending_tool_calls: frozenset[str] = frozenset()
        self.error_message: str | None = None

    @property
    def tools(self) -> list[AgentTool[Any]]:
        return self._tools

    @tools.setter
    def tools(self, tools: Sequence[AgentTool[Any]]) -> None:
        self._tools = list(tools)

    @property
    def messages(self) -> list[AgentMessage]:
        return self._messages

    @messages.setter
    def messages(self, messages: Sequence[AgentMessage]) -> None:
        self._messages = list(messages)

    @property
    def is_streaming(self) -> bool:
        """True from the start of a run until the ``agent_end`` listeners have finished."""
        return self._is_streaming

    def __repr__(self) -> str:
        return (
            f"AgentState(model={self.model.id!r}, messages={len(self._messages)}, "
            f"is_streaming={self._is_streaming}, error_message={self.error_message!r})"
        )
