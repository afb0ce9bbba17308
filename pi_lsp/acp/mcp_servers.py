"""The MCP servers a client passes in ``session/new`` / ``load`` / ``resume`` as the
runtime's ``McpServerConfig`` (``source: "acp"``), so the session's ``RunConfig`` carries
them. stdio and HTTP servers are kept; SSE and ACP-transport servers are dropped (logged).
``attach_mcp`` connects them, with the project's and the user's servers
(docs/tools.md#mcp-servers): trust and call questions go to the client as
``session/request_permission`` (allow once / always / reject; ACP has no "this session")."""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import Any

from acp.schema import HttpMcpServer, McpServerStdio

from ..ai.abort import AbortSignal
from ..mcp.attach import McpAttachment, attach
from ..mcp.config import LoadedConfig, McpPermission, load
from ..runtime.config import McpServerConfig, RunConfig
from ..runtime.permissions import Answer, Question
from ..security.rules import RuleStore
from ..sessions.paths import data_dir, workspace_key
from .permissions import PermissionBridge

log = logging.getLogger("pi_lsp.acp")


def from_acp(servers: Sequence[Any] | None) -> tuple[McpServerConfig, ...]:
    out: list[McpServerConfig] = []
    for server in servers or ():
        if isinstance(server, McpServerStdio):
            out.append(
                McpServerConfig(
                    name=server.name,
                    transport="stdio",
                    command=server.command,
                    args=tuple(server.args),
                    env={v.name: v.value for v in server.env or ()},
                    source="acp",
                )
            )
        elif isinstance(server, HttpMcpServer):
            out.append(
                McpServerConfig(
                    name=server.name,
                    transport="http",
                    url=server.url,
                    headers={h.name: h.value for h in server.headers or ()},
                    source="acp",
                )
            )
        else:
            log.info(
                "MCP server %r: transport not supported, ignored", getattr(server, "name", "?")
            )
    return tuple(out)


_KINDS: dict[str, Any] = {
    "allowOnce": "allow_once",
    "allowAlways": "allow_always",
    "deny": "reject_once",
}


def mcp_ask(
    bridge: PermissionBridge,
) -> Callable[[Question, AbortSignal | None], Awaitable[Answer]]:
    """The MCP questions as ACP permission requests, through the bridge's ``ask_choice``
    (``cancelled`` counts as a denial)."""

    async def question_to_client(question: Question, signal: AbortSignal | None) -> Answer:
        answer = await bridge.ask_choice(question, _KINDS, ids="option")
        return Answer("deny") if answer is None else answer

    return question_to_client


def attach_mcp(
    config: RunConfig,
    cwd: Path,
    bridge: PermissionBridge,
    rules: RuleStore,
    permission: McpPermission,
) -> McpAttachment | None:
    """The project's, the user's and the client's (``config.mcp_servers``, later wins) MCP
    servers as the tools a session is built with; ``None`` when there are none."""
    clients = LoadedConfig(servers=list(config.mcp_servers))
    return attach(
        load(cwd, [clients]),
        ask=mcp_ask(bridge),
        trust_file=data_dir() / "mcp-trust" / f"{workspace_key(cwd)}.json",
        rules=rules,
        permission=lambda: permission,
        notify=lambda text: log.warning("%s", text),
    )
