"""The thinking levels' names alone, standard library only.

``pi-lsp run`` parses its arguments before anything heavy is imported (``cli.args``), so the
names of the levels live here rather than next to the pydantic models (``ai.types``
re-exports ``ThinkingLevel``; ``ai.thinking`` has the rules). Must not import anything of ours.
"""

from __future__ import annotations

from typing import Literal, TypeAlias, get_args

ThinkingLevel: TypeAlias = Literal["minimal", "low", "medium", "high", "xhigh"]
"""The levels a model's reasoning can take."""
AgentThinkingLevel: TypeAlias = Literal["off", "minimal", "low", "medium", "high", "xhigh"]
"""The one definition of the levels a user picks (``off`` plus the model's ``ThinkingLevel``s):
the agent, the sessions, the settings, the wire and the CLI all use it."""
THINKING_LEVELS: tuple[AgentThinkingLevel, ...] = get_args(AgentThinkingLevel)
LEVEL_ORDER: tuple[ThinkingLevel, ...] = get_args(ThinkingLevel)
