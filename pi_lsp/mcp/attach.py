"""MCP tools for one agent session: the front-end-neutral wiring (``pi-lsp run``, the ACP
front end). The language server shares one hub among its sessions instead
(``lsp/host/mcp_host.py``).

``attach(loaded, …)`` makes a hub for the effective configuration and returns what the
session is built with (``runtime.SessionOptions``): the MCP permission check (after the
front end's own) and the before-run hook that starts the servers and refreshes the tools.
The caller closes the hub when the session ends (``await attached.hub.aclose()``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..agent.asking import Ask
from ..agent.types import BeforeToolCall
from ..security.rules import RuleStore
from .config import LoadedConfig, McpPermission
from .hub import AskTrust, McpHub
from .permissions import McpPermissions, asking_trust
from .toolset import McpToolset
from .trust import TrustStore


@dataclass(frozen=True, slots=True)
class McpAttachment:
    hub: McpHub
    check: BeforeToolCall
    """The permission question before each MCP tool call."""
    toolset: McpToolset
    permissions: McpPermissions

    def child_check(self, agent: str, child_session_id: str) -> BeforeToolCall:
        """The permission question for a ``task`` child's MCP calls: attributed to it, the
        tree's answers shared (``McpPermissions.for_child``)."""
        return self.permissions.for_child(agent, child_session_id).before_tool_call

    async def before_run(self, session: Any) -> None:
        """Start the servers and put their tools in ``session`` (a run is about to start)."""
        await self.toolset.before_run(session)


def attach(
    loaded: LoadedConfig,
    *,
    ask: Ask | None,
    trust_file: Path | None,
    rules: RuleStore | None,
    permission: Callable[[], McpPermission],
    notify: Callable[[str], object] = lambda _: None,
    ask_trust: AskTrust | None = None,
    remember_trust: bool = True,
) -> McpAttachment | None:
    """``None`` when no server is configured. ``ask_trust`` defaults to ``ask``'s."""
    for problem in loaded.problems:
        notify(f"pi: {problem}")
    if not loaded.servers:
        return None
    hub = McpHub(
        trust=TrustStore(trust_file) if trust_file is not None else None,
        remember_trust=remember_trust,
    )
    hub.configure(loaded)
    permissions = McpPermissions(ask=ask, setting=permission, rules=rules)
    toolset = McpToolset(
        hub, ask_trust=ask_trust if ask_trust is not None else asking_trust(ask), notify=notify
    )
    return McpAttachment(hub, permissions.before_tool_call, toolset, permissions)
