"""Give one agent session MCP tools: the front-end-neutral wiring (``pi-lsp run``, the ACP
front end). The language server shares one hub among its sessions instead
(``lsp/host/mcp_host.py``).

``attach(session, loaded, …)`` makes a hub for the effective configuration, chains the MCP
permission question after the session's own ``before_tool_call`` and sets the session's
``before_run`` to start the servers and refresh the tools. The caller closes the returned hub
when the session ends (``await hub.aclose()``).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..agent.asking import Ask
from ..security.rules import RuleStore
from .config import LoadedConfig, McpPermission
from .hub import AskTrust, McpHub
from .permissions import McpPermissions, asking_trust
from .toolset import McpToolset
from .trust import TrustStore


def attach(
    session: Any,
    loaded: LoadedConfig,
    *,
    ask: Ask | None,
    trust_file: Path | None,
    rules: RuleStore | None,
    permission: Callable[[], McpPermission],
    notify: Callable[[str], object] = lambda _: None,
    ask_trust: AskTrust | None = None,
    remember_trust: bool = True,
) -> McpHub | None:
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
    session.add_tool_check(permissions.before_tool_call)

    async def before_run() -> None:
        await toolset.before_run(session)

    session.before_run = before_run
    return hub
