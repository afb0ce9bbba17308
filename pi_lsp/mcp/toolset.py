"""The MCP tools of one agent session, refreshed before each run.

``before_run(agent)`` (the session's ``before_run`` hook) lets the hub trust and start the
servers, then puts their tools in the agent's tool list in place of the previous ones.
Whether they are listed one by one or behind the ``mcp`` proxy tool is decided once per
session, the first time there are tools (changing the tool list's shape mid-session
invalidates the provider's prompt cache): the proxy when the definitions would take more
than ``PROXY_SHARE`` of the model's context window.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, Literal

from ..agent import Agent
from .hub import AskTrust, McpHub
from .server import McpServer
from .tools import PROXY_SHARE, McpProxyTool, McpTool, direct_tools, schema_tokens

DEFAULT_CONTEXT_WINDOW = 128_000


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

    async def before_run(self, agent: Agent) -> None:
        notice = self.hub.sdk_notice()
        if notice is not None:
            self.notify(notice)
        await self.hub.prepare(self.ask_trust)
        self._refresh(self.hub.ready())
        if self.mode is None and self.tools:
            model = agent.state.model
            window = (model.context_window if model is not None else 0) or DEFAULT_CONTEXT_WINDOW
            too_big = schema_tokens(self.tools) > PROXY_SHARE * window
            self.mode = "proxy" if too_big else "direct"
        mcp: list[Any] = []
        if self.mode == "proxy":
            mcp = [McpProxyTool(lambda: self.tools)]
        elif self.mode == "direct":
            mcp = list(self.tools)
        kept = [t for t in agent.state.tools if not isinstance(t, McpTool | McpProxyTool)]
        agent.state.tools = kept + mcp


BeforeRun = Callable[[Agent], Awaitable[None]]
