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

from acp.schema import (
    AllowedOutcome,
    HttpMcpServer,
    McpServerStdio,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from ..ai.abort import AbortSignal
from ..mcp.attach import McpAttachment, attach
from ..mcp.config import LoadedConfig, McpPermission, load
from ..runtime.config import McpServerConfig, RunConfig
from ..runtime.permissions import Answer, Question
from ..security.rules import RuleStore
from ..sessions.paths import data_dir, workspace_key

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


AcpAsk = Callable[[ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse]]
_KINDS: dict[str, Any] = {
    "allowOnce": "allow_once",
    "allowAlways": "allow_always",
    "deny": "reject_once",
}


ChildAcpAsk = Callable[
    [str, ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse]
]


def mcp_ask(
    ask: AcpAsk, ask_for_child: ChildAcpAsk | None = None
) -> Callable[[Question, AbortSignal | None], Awaitable[Answer]]:
    """The MCP questions as ACP permission requests (``cancelled`` counts as a denial). A
    ``task`` child's question goes under the child's id when ``ask_for_child`` is given (the
    client declared ``subagents``), else on the parent, titled ``[agent] …``."""

    async def question_to_client(question: Question, signal: AbortSignal | None) -> Answer:
        offered = [o for o in question.options if o.kind in _KINDS]
        options = [
            PermissionOption(option_id=o.id, name=o.label, kind=_KINDS[o.kind]) for o in offered
        ]
        child = question.child_session_id
        title = question.title
        if child is not None and ask_for_child is not None:  # shown under the child: as its own
            title = title.removeprefix(f"[{question.agent_name}] ")
        tool_call = ToolCallUpdate(
            tool_call_id=question.call_id,
            title=title,
            kind="other",
            status="pending",
            raw_input={"detail": question.detail},
        )
        if child is not None and ask_for_child is not None:
            response = await ask_for_child(child, tool_call, options)
        else:
            response = await ask(tool_call, options)
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            return Answer("deny")
        kind = next((o.kind for o in offered if o.id == outcome.option_id), None)
        return Answer(kind or "deny")

    return question_to_client


def attach_mcp(
    config: RunConfig,
    cwd: Path,
    ask: AcpAsk,
    rules: RuleStore,
    permission: McpPermission,
    ask_for_child: ChildAcpAsk | None = None,
) -> McpAttachment | None:
    """The project's, the user's and the client's (``config.mcp_servers``, later wins) MCP
    servers as the tools a session is built with; ``None`` when there are none."""
    clients = LoadedConfig(servers=list(config.mcp_servers))
    return attach(
        load(cwd, [clients]),
        ask=mcp_ask(ask, ask_for_child),
        trust_file=data_dir() / "mcp-trust" / f"{workspace_key(cwd)}.json",
        rules=rules,
        permission=lambda: permission,
        notify=lambda text: log.warning("%s", text),
    )
