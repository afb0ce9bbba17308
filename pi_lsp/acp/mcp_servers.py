"""The MCP servers a client passes in ``session/new`` / ``load`` / ``resume`` as the
runtime's ``McpServerConfig`` (``source: "acp"``), so the session's ``RunConfig`` carries
them. stdio and HTTP servers are kept; SSE and ACP-transport servers are dropped (logged).
Connecting them is the runtime's MCP support; ``initialize`` advertises only what it does."""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import Any

from acp.schema import HttpMcpServer, McpServerStdio

from ..runtime.config import McpServerConfig

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
