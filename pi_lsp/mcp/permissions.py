"""Asking before an MCP tool runs, like ``bash``: allow once / for this session / always in
this workspace (a rule in the workspace's rule store, tool ``mcp``) / deny with a reason the
model reads. Not asked: tools in the server's ``alwaysAllow``, and — when the user set
``permissions.mcp`` to ``readOnlyWithoutAsking`` — tools the server annotates read-only
(``readOnlyHint``). ``permissions.mcp`` = ``allow`` never asks, ``deny`` blocks every call.
The bash sandbox does not apply: an MCP server is a program the user configured, running
with their rights (docs/tools.md#mcp-servers).

The question goes through the front end's prompt (``Ask``, the neutral types of
``agent/asking.py``, shared with ``bash``'s rules): ``pi/requestPermission`` or a message box
in the editor, the terminal in ``pi-lsp run``, ``session/request_permission`` in ACP.
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from ..agent.asking import Answer, Ask, Option, Question, attributed
from ..agent.types import BeforeToolCallContext, BeforeToolCallResult
from ..ai import AbortSignal
from ..security.rules import RuleStore
from .config import McpPermission
from .tools import McpProxyTool, McpTool

log = logging.getLogger(__name__)

DENIED = "The user denied permission to call this MCP tool. It was not called."
DENIED_BY_SETTING = (
    'Calling MCP tools is disabled by the user\'s settings (permissions.mcp = "deny"). '
    "It was not called."
)
DETAIL_LIMIT = 2000


@dataclass(frozen=True, slots=True)
class Target:
    tool: McpTool
    arguments: dict[str, Any]


def target_of(ctx: BeforeToolCallContext) -> Target | None:
    """The MCP tool a call runs (through the proxy too), or ``None`` for other calls."""
    tool = next((t for t in ctx.context.tools if t.name == ctx.tool_call.name), None)
    if isinstance(tool, McpTool):
        return Target(tool, dict(ctx.tool_call.arguments or {}))
    if isinstance(tool, McpProxyTool):
        name = getattr(ctx.args, "tool", None)
        target = tool.find(name) if isinstance(name, str) else None
        if target is not None:
            return Target(target, dict(getattr(ctx.args, "arguments", None) or {}))
    return None


def arguments_text(arguments: dict[str, Any]) -> str:
    text = json.dumps(arguments, ensure_ascii=False, indent=1)
    if len(text) > DETAIL_LIMIT:
        text = text[:DETAIL_LIMIT] + f"… [{len(text) - DETAIL_LIMIT} characters more]"
    return text


@dataclass
class McpPermissions:
    """One per session."""

    ask: Ask | None
    setting: Callable[[], McpPermission]
    rules: RuleStore | None = None
    session_allowed: set[str] = field(default_factory=set)
    pending: dict[str, dict[str, str]] = field(default_factory=dict)
    child: tuple[str, str] | None = None
    """A ``task`` child's view (``for_child``): ``(agent name, child session id)``."""

    def pending_list(self) -> list[dict[str, str]]:
        return list(self.pending.values())

    def for_child(self, agent: str, child_session_id: str) -> McpPermissions:
        """A ``task`` child's checks (docs/subagents.md#permissions): the same setting,
        workspace rules, "this session" answers and pending list as the root (an answer given
        in a child holds for the whole tree), its questions asked through the root's ``Ask``
        with ``[agent] `` before their title and the child's id on them."""
        ask = self.ask

        async def child_ask(question: Question, signal: AbortSignal | None) -> Answer:
            assert ask is not None
            return await ask(attributed(question, agent, child_session_id), signal)

        return replace(
            self, ask=child_ask if ask is not None else None, child=(agent, child_session_id)
        )

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        target = target_of(ctx)
        if target is None:
            return None
        tool = target.tool
        mode = self.setting()
        if mode == "deny":
            return BeforeToolCallResult(block=True, reason=DENIED_BY_SETTING)
        if mode == "allow" or tool.listed.name in tool.server.config.always_allow:
            return None
        if mode == "readOnlyWithoutAsking" and tool.listed.read_only:
            return None
        if tool.name in self.session_allowed:
            return None
        if self.rules is not None and self.rules.allows("mcp", tool.name):
            return None
        answer = await self._ask(ctx.tool_call.id, target, signal)
        if answer.kind not in ("allowOnce", "allowSession", "allowAlways"):
            reason = DENIED if not answer.reason else f"{DENIED} The user said: {answer.reason}"
            return BeforeToolCallResult(block=True, reason=reason)
        if answer.kind in ("allowSession", "allowAlways"):
            self.session_allowed.add(tool.name)
        if answer.kind == "allowAlways" and self.rules is not None:
            try:
                await asyncio.to_thread(self.rules.add, "mcp", [tool.name])
            except (OSError, ValueError) as exc:
                log.error("could not save the MCP permission rule: %s", exc)
        return None

    async def _ask(self, call_id: str, target: Target, signal: AbortSignal | None) -> Answer:
        if self.ask is None:
            return Answer("deny", "no one could be asked (not interactive)")
        tool = target.tool
        server = tool.server.name
        title = f"Call MCP tool {tool.listed.name} (server {server})"
        options = [
            Option("allowOnce", "Allow once", "allowOnce"),
            Option("allowSession", f"Allow {tool.listed.name} for this session", "allowSession"),
        ]
        if self.rules is not None:
            options.append(
                Option(
                    "allowAlways",
                    f"Always allow {tool.listed.name} ({server}) in this workspace",
                    "allowAlways",
                )
            )
        options.append(Option("deny", "Deny", "deny"))
        question = Question(call_id, tool.name, title, arguments_text(target.arguments), options)
        entry = {"toolCallId": call_id, "tool": tool.name, "title": title}
        if self.child is not None:  # listed as the question is shown: attributed
            entry["title"] = f"[{self.child[0]}] {title}"
            entry["childSessionId"] = self.child[1]
        self.pending[call_id] = entry
        try:
            return await self.ask(question, signal)
        except Exception as exc:  # a prompt that fails is a "no"
            log.info("MCP permission not given: %s", exc or type(exc).__name__)
            return Answer("deny")
        finally:
            self.pending.pop(call_id, None)


def trust_question(servers: list[Any]) -> Question:
    """The question for a workspace's project servers (``allowAlways`` / ``deny``)."""
    listing = "\n".join(f"{s.name}: {s.describe()}" for s in servers)
    names = ", ".join(s.name for s in servers)
    return Question(
        call_id=f"mcp-trust-{names}",
        tool="mcp",
        title=f"Start the MCP servers of this workspace's .mcp.json ({names})?",
        detail=(
            "The project's .mcp.json runs these programs on your computer:\n"
            f"{listing}\n\nThe answer is remembered for this workspace."
        ),
        options=[
            Option("allowAlways", "Allow (remember for this workspace)", "allowAlways"),
            Option("deny", "Deny", "deny"),
        ],
    )


def asking_trust(ask: Ask | None) -> Callable[[list[Any]], Awaitable[bool]] | None:
    """The hub's trust question put through a session's ``Ask``."""
    if ask is None:
        return None

    async def ask_trust(servers: list[Any]) -> bool:
        try:
            answer = await ask(trust_question(servers), None)
        except Exception as exc:
            log.info("MCP trust not given: %s", exc or type(exc).__name__)
            return False
        return answer.kind in ("allowAlways", "allowSession", "allowOnce")

    return ask_trust
