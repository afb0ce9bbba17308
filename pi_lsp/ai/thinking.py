"""Thinking levels: which a model supports, clamping, and token budgets
(docs/reference/pi.md#thinking-levels).

``off`` (agent-core's extra level) means no ``reasoning`` option at all. Budget-based thinking
(older Anthropic models) gets minimal 1024, low 2048, medium 8192, high 16384 tokens; ``xhigh``
is clamped to high. Must not import anything of ours above ``ai/``.
"""

from __future__ import annotations

from collections.abc import Mapping

from .thinking_levels import LEVEL_ORDER, ThinkingLevel
from .thinking_levels import THINKING_LEVELS as THINKING_LEVELS  # re-exported
from .thinking_levels import AgentThinkingLevel as AgentThinkingLevel  # re-exported
from .types import Model

DEFAULT_THINKING_BUDGETS: dict[str, int] = {
    "minimal": 1024,
    "low": 2048,
    "medium": 8192,
    "high": 16384,
}
MIN_OUTPUT_TOKENS = 1024


def supported_thinking_levels(model: Model) -> list[AgentThinkingLevel]:
    """``["off"]`` without reasoning; else ``off`` plus every level not mapped to ``None``
    (``xhigh`` only when the model's map names it)."""
    if not model.reasoning:
        return ["off"]
    mapping = model.thinking_level_map or {}
    levels: list[AgentThinkingLevel] = ["off"]
    for level in LEVEL_ORDER:
        if level == "xhigh":
            if mapping.get("xhigh") is not None:
                levels.append(level)
        elif level not in mapping or mapping[level] is not None:
            levels.append(level)
    return levels


def clamp_thinking_level(model: Model, level: AgentThinkingLevel) -> AgentThinkingLevel:
    """The requested level if supported, else the nearest higher one, else the nearest lower."""
    supported = supported_thinking_levels(model)
    if level in supported:
        return level
    if level == "off":
        return "off"
    index = LEVEL_ORDER.index(level)
    for higher in LEVEL_ORDER[index + 1 :]:
        if higher in supported:
            return higher
    for lower in reversed(LEVEL_ORDER[:index]):
        if lower in supported:
            return lower
    return "off"


def thinking_budget(
    level: ThinkingLevel,
    model_max_tokens: int,
    caller_max_tokens: int | None = None,
    budgets: Mapping[str, int] | None = None,
) -> tuple[int, int]:
    """``(max_tokens, budget_tokens)`` for budget-based thinking.

    ``max_tokens`` is the model's maximum when the caller gave none, else
    ``min(caller + budget, model max)``; when that leaves no room for output the budget
    shrinks to ``max(0, max_tokens - 1024)``.
    """
    merged = {**DEFAULT_THINKING_BUDGETS, **(budgets or {})}
    clamped = "high" if level == "xhigh" else level
    budget = merged[clamped]
    if caller_max_tokens is None:
        max_tokens = model_max_tokens
    else:
        max_tokens = min(caller_max_tokens + budget, model_max_tokens)
    if max_tokens <= budget:
        budget = max(0, max_tokens - MIN_OUTPUT_TOKENS)
    return max_tokens, budget
