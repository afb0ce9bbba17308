"""A real MCP server for the tests, built with the SDK's ``MCPServer``.

``python demo_server.py stdio`` or ``python demo_server.py http PORT`` (Streamable HTTP on
127.0.0.1, printing ``READY`` when it listens). Tools: ``echo_header`` (the ``X-Api-Key``
header it got), ``fail`` (an error result), ``sleep`` (sleeps N seconds), ``crash`` (the
server exits mid-call), ``grow`` (adds a tool ``extra`` and announces tools/list_changed),
``pid`` (its process id); ``DEMO_TOOLS=N`` adds N generated tools, ``DEMO_CHILD=MARKER``
starts a child process with MARKER on its command line.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from typing import Any

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.types import ToolAnnotations

server = MCPServer("demo")


@server.tool(annotations=ToolAnnotations(read_only_hint=True))
def echo_header(ctx: Context) -> str:
    """The X-Api-Key header of the request (HTTP only)."""
    headers = ctx.headers or {}
    return f"x-api-key={headers.get('x-api-key', '<none>')}"


@server.tool()
def fail(why: str) -> str:
    """Always fails with ``why``."""
    raise ToolError(f"failed on purpose: {why}")


@server.tool()
async def sleep(seconds: float) -> str:
    """Sleeps, then answers."""
    await asyncio.sleep(seconds)
    return "slept"


@server.tool()
def crash() -> str:
    """The server process exits in the middle of the call."""
    os._exit(3)


@server.tool()
def pid() -> str:
    """The server's process id."""
    return str(os.getpid())


@server.tool()
async def grow(ctx: Context) -> str:
    """Adds the tool ``extra`` and announces that the tool list changed."""

    def extra() -> str:
        """A tool that came later."""
        return "extra here"

    server.add_tool(extra)
    with contextlib.suppress(Exception):
        await ctx.session.send_tool_list_changed()
    with contextlib.suppress(Exception):
        await ctx.notify_tools_changed()
    return "grown"


def _many(count: int) -> None:
    def make(i: int) -> Any:
        def tool(query: str, limit: int = 10) -> str:
            return f"tool {i}: {query} {limit}"

        return tool

    for i in range(count):
        tool = make(i)
        server.add_tool(
            tool,
            name=f"generated_tool_{i:03d}",
            description=(
                f"Generated tool number {i}: searches the inventory of warehouse {i} for items "
                "matching a query, returning names, quantities and shelf locations."
            ),
        )


def main(argv: list[str]) -> Any:
    marker = os.environ.get("DEMO_CHILD")
    if marker:  # a child of its own, as npx starts node: it must die with pi-lsp too
        import subprocess

        code = "import time; time.sleep(600)"
        subprocess.Popen([sys.executable, "-c", code, marker], stdin=subprocess.DEVNULL)
    if os.environ.get("DEMO_TOOLS"):
        _many(int(os.environ["DEMO_TOOLS"]))
    if argv[1] == "stdio":
        return server.run()
    port = int(argv[2])
    print("READY", flush=True)
    return server.run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main(sys.argv)
