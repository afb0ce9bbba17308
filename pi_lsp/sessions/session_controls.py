"""How a front end (through the runtime) changes what a session's agent runs with — its
settings, tools and per-call notes — as methods of the session (a mixin of
``AgentSession``). These and the rest of ``agent/`` and ``sessions/`` are the only code that
writes ``Agent`` fields (``tests/test_runtime_rules.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..agent._hooks import resolve
from ..agent.types import (
    AgentTool,
    BeforeToolCall,
    BeforeToolCallContext,
    BeforeToolCallResult,
    MessagePoll,
)
from ..ai import AbortSignal
from .run_settings import RunSettings

if TYPE_CHECKING:
    from ..agent import Agent


class SessionControls:
    agent: Agent

    def apply_settings(self, settings: RunSettings) -> None:
        """The settings of the next run (a run in progress keeps its model and key; a model
        of the same provider takes over at its next model call, see ``_next_turn``)."""
        agent = self.agent
        agent.state.model = settings.model
        if settings.thinking_level is not None:
            agent.state.thinking_level = settings.thinking_level
        agent.steering_mode = settings.steering_mode
        agent.follow_up_mode = settings.follow_up_mode
        agent.tool_execution = settings.tool_execution
        agent.stream_fn = settings.stream_fn
        if agent.stream_options != settings.stream_options:
            agent.stream_options = settings.stream_options

    def set_call_notes(self, poll: MessagePoll | None) -> None:
        """Messages to add right before each model call, whichever run makes it (the review
        notes of the language server)."""
        self.agent.get_call_notes = poll

    @property
    def tools(self) -> list[AgentTool[Any]]:
        return list(self.agent.state.tools)

    def set_tools(self, tools: Sequence[AgentTool[Any]]) -> None:
        """The agent's whole tool list, from its next model call on (a tool source whose
        tools change: an MCP server restarted)."""
        self.agent.state.tools = list(tools)

    def add_tool_check(self, check: BeforeToolCall) -> None:
        """One more question before each tool call (an MCP server's permission), asked when
        the existing ``before_tool_call`` let the call through (the first answer wins)."""
        first = self.agent.before_tool_call

        async def before_tool_call(
            ctx: BeforeToolCallContext, signal: AbortSignal | None
        ) -> BeforeToolCallResult | None:
            answer = await resolve(first(ctx, signal)) if first is not None else None
            if answer is not None:
                return answer
            return await resolve(check(ctx, signal))

        self.agent.before_tool_call = before_tool_call
