"""What a session has cost and how full its context is: ``pi/state``'s meter.

``usage_totals`` sums the usage of every assistant message in the session file (all branches:
tokens spent on an abandoned branch were still paid for). ``context_tokens`` is the estimate
of the next request: the last valid usage plus estimates for what followed it, or — before
the first reply — the system prompt, tool definitions and messages estimated.
Must not import pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ..agent.messages import AgentMessage
from ..agent.types import AgentTool, tool_definitions
from ..ai import AssistantMessage
from ..ai.cost import estimate_tokens
from .compaction.tokens import estimate_context_tokens
from .entries import CustomEntry, MessageEntry, SessionEntry


@dataclass(frozen=True, slots=True)
class UsageTotals:
    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0
    cost: float = 0.0
    """In dollars, from the catalog's (or the custom model's) prices."""
    reasoning: int = 0
    """The part of ``output`` the providers reported as reasoning (thinking) tokens."""
    children: UsageTotals | None = None
    """The part spent by ``task`` children (docs/subagents.md), included in the totals above;
    ``None`` when the session had none."""


SUBAGENT_ENTRY_TYPE = "subagent"
"""The custom entry a parent writes for each ``task`` child (start and end)."""


def subagent_records(entries: Sequence[SessionEntry]) -> list[dict[str, Any]]:
    """The session's ``task`` children, each as its latest ``subagent`` record
    (``childSessionId``, ``toolCallId``, ``agent``, ``description``, ``state``, ``usage``…),
    in the order they started: what a resumed session shows."""
    latest: dict[str, dict[str, Any]] = {}
    for entry in entries:
        if isinstance(entry, CustomEntry) and entry.custom_type == SUBAGENT_ENTRY_TYPE:
            data = entry.data if isinstance(entry.data, dict) else {}
            child = data.get("childSessionId")
            if isinstance(child, str):
                latest[child] = data
    return list(latest.values())


def children_usage(entries: Sequence[SessionEntry]) -> UsageTotals | None:
    """What the session's ``task`` children spent (their final ``subagent`` records)."""
    found = False
    inp = out = read = write = reasoning = 0
    cost = 0.0
    for entry in entries:
        if not isinstance(entry, CustomEntry) or entry.custom_type != SUBAGENT_ENTRY_TYPE:
            continue
        data = entry.data if isinstance(entry.data, dict) else {}
        usage = data.get("usage")
        if not isinstance(usage, dict):
            continue
        found = True
        inp += int(usage.get("input", 0))
        out += int(usage.get("output", 0))
        read += int(usage.get("cacheRead", 0))
        write += int(usage.get("cacheWrite", 0))
        reasoning += int(usage.get("reasoning", 0))
        cost += float(usage.get("cost", 0.0))
    return UsageTotals(inp, out, read, write, cost, reasoning) if found else None


def usage_totals(entries: Sequence[SessionEntry]) -> UsageTotals:
    """The session's own assistant usage plus its children's (``children`` says how much)."""
    inp = out = read = write = reasoning = 0
    cost = 0.0
    children = children_usage(entries)
    if children is not None:
        inp, out, read, write = (
            children.input,
            children.output,
            children.cache_read,
            children.cache_write,
        )
        cost, reasoning = children.cost, children.reasoning
    for entry in entries:
        if isinstance(entry, MessageEntry) and isinstance(entry.message, AssistantMessage):
            usage = entry.message.usage
            inp += usage.input
            out += usage.output
            read += usage.cache_read
            write += usage.cache_write
            cost += usage.cost.total
            reasoning += usage.reasoning or 0
    return UsageTotals(inp, out, read, write, cost, reasoning, children)


def context_tokens(
    messages: Sequence[AgentMessage], system_prompt: str, tools: Sequence[AgentTool[Any]]
) -> int:
    estimate = estimate_context_tokens(messages)
    if estimate.last_usage_index is not None:
        return estimate.tokens
    chars = len(system_prompt)
    for tool in tool_definitions(tools):
        chars += len(tool.model_dump_json())
    return estimate.tokens + estimate_tokens(chars)
