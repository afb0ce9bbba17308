"""``RunSettings``: the resolved settings a session applies to its agent before a run.

Resolved by ``runtime`` from a ``RunConfig``; ``AgentSession.apply_settings`` is the one
place that writes them into the ``Agent`` (nothing outside ``agent/`` and ``sessions/``
writes ``Agent`` fields).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..agent.types import QueueMode, ToolExecutionMode
from ..ai import Model, StreamOptions
from ..ai.thinking_levels import AgentThinkingLevel


@dataclass(frozen=True, slots=True)
class RunSettings:
    model: Model
    stream_options: StreamOptions
    thinking_level: AgentThinkingLevel | None = None
    """``None``: keep the session's level."""
    stream_fn: Any = None
    """``None``: the registry's provider for ``model.api``."""
    tool_execution: ToolExecutionMode = "parallel"
    steering_mode: QueueMode = "one-at-a-time"
    follow_up_mode: QueueMode = "one-at-a-time"
