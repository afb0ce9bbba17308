"""MCP tools as the agent's tools: one ``mcp__<server>__<tool>`` per server tool, or — when
their schemas would take more than ``PROXY_SHARE`` of the model's context window — one small
``mcp`` proxy tool (search by keyword → names and schemas; call by name).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from pydantic import BaseModel, ConfigDict, Field

from ..agent.types import AgentTool, AgentToolResult, ToolFailure, ToolUpdateCallback
from ..ai import AbortSignal, Tool
from ..ai.abort import done_before_abort
from .names import tool_name, unique
from .results import to_agent_result
from .server import ListedTool, McpServer, ServerGone

PROXY_NAME = "mcp"
PROXY_SHARE = 0.10
"""Schemas above this share of the context window go behind the proxy tool."""
TOOL_TIMEOUT_S = 120.0
CHARS_PER_TOKEN = 4
SEARCH_LIMIT = 8


class AnyArguments(BaseModel):
    """The MCP server validates its own arguments: every key is kept as given."""

    model_config = ConfigDict(extra="allow")


class McpTool(AgentTool[AnyArguments]):
    """One tool of one MCP server (a subclass per tool is made by ``make_tool``)."""

    parameters: ClassVar[type[BaseModel]] = AnyArguments
    server: McpServer
    listed: ListedTool
    schema: ClassVar[dict[str, Any]] = {}

    def to_tool(self) -> Tool:
        return Tool(name=self.name, description=self.description, parameters=self.schema)

    async def execute(
        self,
        tool_call_id: str,
        params: AnyArguments,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        return await call_tool(self.server, self.listed.name, params.model_dump(), signal)


def make_tool(server: McpServer, listed: ListedTool, name: str) -> McpTool:
    description = listed.description or f"{listed.name} (MCP server {server.name})"
    cls = type(
        f"McpTool_{name}",
        (McpTool,),
        {
            "name": name,
            "label": f"{server.name}: {listed.name}",
            "description": f"[MCP {server.name}] {description}",
            "schema": schema_of(listed),
            "read_only": listed.read_only,  # readOnlyHint: plan mode keeps it
        },
    )
    tool: McpTool = cls()
    tool.server, tool.listed = server, listed
    return tool


def schema_of(listed: ListedTool) -> dict[str, Any]:
    schema = dict(listed.input_schema)
    schema.setdefault("type", "object")
    if schema.get("type") == "object":
        schema.setdefault("properties", {})
    return schema


def details_of(server: McpServer, tool: str, arguments: dict[str, Any]) -> dict[str, Any]:
    """What a tool card shows: which server and tool (``details.mcp``)."""
    return {"mcp": {"server": server.name, "tool": tool}}


async def call_tool(
    server: McpServer, tool: str, arguments: dict[str, Any], signal: AbortSignal | None
) -> AgentToolResult:
    import asyncio

    timeout = server.config.timeout_s or TOOL_TIMEOUT_S
    call = asyncio.ensure_future(server.call(tool, arguments, timeout))
    if not await done_before_abort(call, signal):
        call.cancel()
        raise ToolFailure("Aborted.")
    try:
        result = call.result()
    except ServerGone as exc:
        raise ToolFailure(f"MCP server {server.name} is not available: {exc}") from None
    except TimeoutError:
        raise ToolFailure(
            f"The MCP tool {tool} (server {server.name}) did not answer within {timeout:g} s."
        ) from None
    except ToolFailure:
        raise
    except Exception as exc:
        from .server import describe_error

        why = describe_error(exc)
        server.broken(why)
        raise ToolFailure(
            f"The MCP tool {tool} (server {server.name}) failed: {why}. "
            "The server is restarted on its next use."
        ) from None
    return to_agent_result(result, details_of(server, tool, arguments), server.secrets)


def direct_tools(servers: Sequence[McpServer]) -> list[McpTool]:
    pairs = [(s, t) for s in servers if s.state == "ready" for t in s.tools]
    named = unique([tool_name(s.name, t.name) for s, t in pairs])
    return [make_tool(s, t, n) for (s, t), n in zip(pairs, named, strict=True)]


def schema_tokens(tools: Sequence[McpTool]) -> int:
    """Roughly what the definitions cost the model (≈ 4 characters a token)."""
    size = sum(len(json.dumps(t.to_tool().model_dump())) for t in tools)
    return size // CHARS_PER_TOKEN


# --------------------------------------------------------------------------- the proxy


class ProxyArguments(BaseModel):
    search: str | None = Field(
        default=None,
        description="Keywords: lists the matching MCP tools with their names and input schemas.",
    )
    tool: str | None = Field(
        default=None, description="The exact name of an MCP tool (from a search) to call."
    )
    arguments: dict[str, Any] | None = Field(
        default=None, description="The tool's arguments, matching its input schema."
    )


class McpProxyTool(AgentTool[ProxyArguments]):
    name: ClassVar[str] = PROXY_NAME
    label: ClassVar[str] = "MCP"
    description: ClassVar[str] = (
        "Use the tools of the user's MCP servers. First search by keywords "
        '({"search": "github issue"}) to get tool names and input schemas, then call one '
        '({"tool": "<name>", "arguments": {...}}).'
    )
    parameters: ClassVar[type[BaseModel]] = ProxyArguments

    def __init__(self, tools: Callable[[], list[McpTool]]) -> None:
        self._tools = tools

    def find(self, name: str) -> McpTool | None:
        return next((t for t in self._tools() if t.name == name), None)

    def restricted(self, allowed: Callable[[str], bool]) -> McpProxyTool:
        """The same proxy over only the tools whose name is ``allowed`` (a ``task`` child's)."""
        tools = self._tools
        return McpProxyTool(lambda: [t for t in tools() if allowed(t.name)])

    async def execute(
        self,
        tool_call_id: str,
        params: ProxyArguments,
        signal: AbortSignal | None = None,
        on_update: ToolUpdateCallback | None = None,
    ) -> AgentToolResult:
        if params.tool:
            target = self.find(params.tool)
            if target is None:
                raise ToolFailure(
                    f"No MCP tool named {params.tool!r}: search first and use a listed name."
                )
            return await call_tool(
                target.server, target.listed.name, params.arguments or {}, signal
            )
        if params.search is None:
            raise ToolFailure('Give "search" (keywords) or "tool" (a name) and "arguments".')
        hits = search(self._tools(), params.search)
        if not hits:
            text = f"No MCP tool matches {params.search!r}."
        else:
            text = "\n\n".join(
                f"{t.name}: {t.description}\ninput schema: {json.dumps(t.schema)}" for t in hits
            )
        return AgentToolResult(content=[_text(text)], details={"mcp": {"search": params.search}})


def _text(text: str) -> Any:
    from ..ai import TextContent

    return TextContent(text=text)


def search(tools: Sequence[McpTool], query: str) -> list[McpTool]:
    words = [w for w in query.lower().replace("_", " ").split() if w]
    scored: list[tuple[int, int, McpTool]] = []
    for index, tool in enumerate(tools):
        name = tool.name.lower().replace("_", " ")
        about = tool.description.lower()
        score = sum(3 * (w in name) + (w in about) for w in words)
        if score or not words:
            scored.append((-score, index, tool))
    scored.sort(key=lambda x: (x[0], x[1]))
    return [t for _, _, t in scored[:SEARCH_LIMIT]]
