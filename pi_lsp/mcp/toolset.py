"""The MCP tools of one agent session, refreshed before each run.

``before_run(session)`` (the session's ``before_run`` hook) lets the hub trust and start the
servers, then puts their tools in the session's tool list in place of the previous ones
(``AgentSession.set_tools``: nothing here writes the agent).
Whether they are listed one by one or behind the ``mcp`` proxy tool is decided once per
session, the first time there are tools (changing the tool list's shape mid-session
invalidates the provider's prompt cache): the proxy when the definitions would take more
than ``PROXY_SHARE`` of the model's context window.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any, Literal, Protocol

from ..agent.types import AgentTool
from ..ai import Model
from .hub import AskTrust, McpHub
from .names import PREFIX, sanitise, tool_name
from .server import McpServer
from .tools import PROXY_SHARE, McpProxyTool, McpTool, direct_tools, schema_tokens

DEFAULT_CONTEXT_WINDOW = 128_000


class ToolHolder(Protocol):
    """What ``before_run`` needs of a session (``AgentSession`` is one)."""

    @property
    def model(self) -> Model: ...

    @property
    def tools(self) -> list[AgentTool[Any]]: ...

    def set_tools(self, tools: Sequence[AgentTool[Any]]) -> None: ...


class McpToolset:
    def __init__(
        self,
        hub: McpHub,
        *,
        ask_trust: AskTrust | None,
        notify: Callable[[str], object] = lambda _: None,
    ) -> None:
        self.hub = hub
        self.ask_trust = ask_trust
        self.notify = notify
        self.mode: Literal["direct", "proxy"] | None = None
        self.tools: list[McpTool] = []
        self._key: tuple[Any, ...] = ()

    def _refresh(self, servers: list[McpServer]) -> None:
        key = tuple((s.name, id(s.tools)) for s in servers)
        if key != self._key:
            self._key = key
            self.tools = direct_tools(servers)

    async def before_run(self, session: ToolHolder) -> None:
        notice = self.hub.sdk_notice()
        if notice is not None:
            self.notify(notice)
        await self.hub.prepare(self.ask_trust)
        self._refresh(self.hub.ready())
        if self.mode is None and self.tools:
            model = session.model
            window = (model.context_window if model is not None else 0) or DEFAULT_CONTEXT_WINDOW
            too_big = schema_tokens(self.tools) > PROXY_SHARE * window
            self.mode = "proxy" if too_big else "direct"
        mcp: list[Any] = []
        if self.mode == "proxy":
            mcp = [McpProxyTool(lambda: self.tools)]
        elif self.mode == "direct":
            mcp = list(self.tools)
        kept = [t for t in session.tools if not isinstance(t, McpTool | McpProxyTool)]
        session.set_tools(kept + mcp)


BeforeRun = Callable[[ToolHolder], Awaitable[None]]


def tool_allowed(name: str, keep: Sequence[str] | None, drop: Sequence[str] = ()) -> bool:
    """Whether a ``task`` child whose definition lists ``keep`` (``None``: every tool) and
    ``drop`` gets the MCP tool ``name`` (``mcp__<server>__<tool>``, Claude Code's naming; the
    entry's server and tool names are made model-safe the way ours are, ``names.tool_name``).
    An entry ``mcp__<server>`` or ``mcp__<server>__*`` stands for all of a server's tools."""

    def listed(names: Sequence[str]) -> bool:
        for entry in names:
            if entry == name:
                return True
            if not entry.startswith(PREFIX):
                continue
            server, _, tool = entry[len(PREFIX) :].partition("__")
            if tool and tool != "*":
                if tool_name(server, tool) == name:
                    return True
            elif name.startswith(f"{PREFIX}{sanitise(server)}__"):
                return True
        return False

    if listed(drop):
        return False
    return keep is None or listed(keep)


def child_mcp_tools(
    parent_tools: Sequence[AgentTool[Any]],
    keep: Sequence[str] | None,
    drop: Sequence[str] = (),
) -> list[AgentTool[Any]]:
    """A ``task`` child's MCP tools: the parent's (the same objects, so the same server
    connections: no second server process), only those its definition allows; behind the
    parent's ``mcp`` proxy when the parent has one (restricted the same way)."""
    out: list[AgentTool[Any]] = []
    for tool in parent_tools:
        if isinstance(tool, McpTool) and tool_allowed(tool.name, keep, drop):
            out.append(tool)
        elif isinstance(tool, McpProxyTool):
            if keep is None and not drop:
                out.append(tool)
            elif keep is None or any(k.startswith(PREFIX) for k in keep):
                out.append(tool.restricted(lambda name: tool_allowed(name, keep, drop)))
    return out
