"""One MCP server: its connection, held by one owner task, and its state.

The SDK's ``Client`` context is entered and left in the same task (``_own``) — entering it in
one task and leaving it in another is anyio's "cancel scope in a different task" crash.
Other tasks call tools through the connected client. States: ``stopped`` (not started yet, or
stopped), ``starting``, ``ready``, ``failed`` (with a message; the next use starts it again
once the back-off since the last failure has passed). Standard library at import time: the
SDK is imported when a server starts.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from ..security import vault
from ..security.process_guard import guarded_argv
from .config import McpServerConfig
from .stderr import StderrTail

log = logging.getLogger(__name__)

State = Literal["stopped", "starting", "ready", "failed"]
STARTUP_TIMEOUT_S = 30.0
"""How long a turn waits for a server to start; the start itself goes on in the background."""
START_LIMIT_S = 300.0
"""A start that has not finished after this long fails (and is retried on next use)."""
BACKOFF_S = (0.0, 2.0, 5.0, 15.0, 30.0, 60.0)
"""Wait before starting again after 1, 2, 3… failures in a row: a crash is retried at once."""


@dataclass(frozen=True, slots=True)
class ListedTool:
    """One tool of a server, as listed (the SDK's type stays inside this package)."""

    name: str
    description: str
    input_schema: dict[str, Any]
    read_only: bool


class ServerGone(Exception):
    """The server is not connected (it failed, stopped or crashed)."""


class McpServer:
    def __init__(
        self, config: McpServerConfig, *, on_change: Callable[[], None] = lambda: None
    ) -> None:
        self.config = config
        self.secrets = frozenset(config.secret_values())
        """The entry's credentials (found once): cut from each tool result (``results``)."""
        for value in self.secrets:  # session files and logs cut them too
            vault.remember_value(value)
        self.state: State = "stopped"
        self.message: str | None = None
        self.tools: list[ListedTool] = []
        self._on_change = on_change
        self._client: Any = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._refresh = asyncio.Event()
        self._failures = 0
        self._failed_at = 0.0

    @property
    def name(self) -> str:
        return self.config.name

    # ------------------------------------------------------------------ lifecycle

    def start(self) -> None:
        """Start in the background unless running or backing off after a failure."""
        if self._task is not None and not self._task.done():
            return
        if self.state == "failed":
            wait = BACKOFF_S[min(self._failures, len(BACKOFF_S)) - 1]
            if time.monotonic() - self._failed_at < wait:
                return
        self._ready = asyncio.Event()
        self._stop = asyncio.Event()
        self._set("starting", None)
        self._task = asyncio.get_running_loop().create_task(
            self._own(), name=f"mcp server {self.name}"
        )

    async def wait_ready(self, limit: float) -> bool:
        """Start if needed and wait (at most ``limit`` seconds) until ready; ``True`` if it is."""
        closing = self._task
        if closing is not None and not closing.done() and self._stop.is_set():
            await asyncio.wait({closing}, timeout=limit)  # a broken connection still closing
        self.start()
        if self.state == "ready":
            return True
        task = self._task
        if task is None or task.done():
            return False
        ready = asyncio.ensure_future(self._ready.wait())
        try:
            await asyncio.wait({ready, task}, timeout=limit, return_when="FIRST_COMPLETED")
        finally:
            ready.cancel()
        if self.state == "starting":
            self.message = f"still starting after {limit:g} s; its tools come when it is ready"
            self._on_change()
        return self._ready.is_set() and self._client is not None

    async def stop(self) -> None:
        """Stop and wait for the owner task to close the connection."""
        self._stop.set()
        task = self._task
        if task is not None and not task.done():
            with contextlib.suppress(asyncio.CancelledError, Exception):
                await asyncio.wait_for(asyncio.shield(task), timeout=10)
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
        self._set("stopped", None)

    async def restart(self) -> None:
        await self.stop()
        self._failures = 0
        self.start()

    def _set(self, state: State, message: str | None) -> None:
        self.state, self.message = state, message
        self._on_change()

    def _fail(self, message: str) -> None:
        self._failures += 1
        self._failed_at = time.monotonic()
        self._set("failed", message)

    def broken(self, why: str) -> None:
        """A call found the connection dead: stop the owner; the next use starts it again."""
        if self.state == "ready":
            self._fail(why)
            self._failures = max(self._failures, 1)
        self._stop.set()

    async def _own(self) -> None:
        tail = StderrTail(self.name, self.secrets)
        try:
            async with asyncio.timeout(START_LIMIT_S) as deadline, _connect(self, tail) as client:
                self.tools = await _list_tools(client)
                deadline.reschedule(None)
                self._client = client
                self._failures = 0
                self._set("ready", None)
                self._ready.set()
                listener = asyncio.ensure_future(_listen(client, self.tools_changed))
                try:
                    await self._serve(client)
                finally:
                    listener.cancel()
                    with contextlib.suppress(asyncio.CancelledError, Exception):
                        await listener
        except asyncio.CancelledError:
            raise
        except BaseException as exc:  # an SDK or transport failure
            if self.state != "failed":
                self._fail(tail.explain(describe_error(exc)))
            log.info("MCP server %s: %s", self.name, self.message)
        finally:
            self._client = None
            if self.state in ("ready", "starting") and self._stop.is_set():
                self._set("stopped", None)
            elif self.state in ("ready", "starting"):
                self._fail(tail.explain("the server closed the connection"))

    async def _serve(self, client: Any) -> None:
        """Until stopped: refresh the tool list when the server says it changed."""
        while not self._stop.is_set():
            refresh = asyncio.ensure_future(self._refresh.wait())
            stop = asyncio.ensure_future(self._stop.wait())
            try:
                await asyncio.wait({refresh, stop}, return_when="FIRST_COMPLETED")
            finally:
                refresh.cancel()
                stop.cancel()
            if self._refresh.is_set() and not self._stop.is_set():
                self._refresh.clear()
                self.tools = await _list_tools(client)
                self._on_change()

    # ---------------------------------------------------------------------- calls

    def tools_changed(self) -> None:
        self._refresh.set()

    async def call(self, tool: str, arguments: dict[str, Any], limit: float) -> Any:
        """``tools/call`` (the SDK's ``CallToolResult``); ``ServerGone`` when not connected,
        ``TimeoutError`` past ``limit`` seconds."""
        client = self._client
        if client is None or self.state != "ready":
            raise ServerGone(self.message or f"MCP server {self.name} is not running")
        async with asyncio.timeout(limit):
            return await client.call_tool(tool, arguments)


def describe_error(exc: BaseException) -> str:
    """A one-line, secret-free description (exception groups are unwrapped)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, TimeoutError):
        return f"did not start within {START_LIMIT_S:g} s"
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
    return text[:300]


async def _list_tools(client: Any) -> list[ListedTool]:
    tools: list[ListedTool] = []
    cursor: str | None = None
    for _ in range(100):
        page = await client.list_tools(cursor=cursor, cache_mode="refresh")
        for tool in page.tools:
            annotations = tool.annotations
            tools.append(
                ListedTool(
                    name=tool.name,
                    description=tool.description or tool.title or "",
                    input_schema=dict(tool.input_schema or {"type": "object"}),
                    read_only=bool(annotations is not None and annotations.read_only_hint),
                )
            )
        cursor = page.next_cursor
        if not cursor:
            break
    return tools


async def _listen(client: Any, changed: Callable[[], None]) -> None:
    """On a 2026-07-28 connection, tool list changes come on a ``subscriptions/listen``
    stream (older servers send ``notifications/tools/list_changed``: ``on_message``)."""
    from mcp_types.version import MODERN_PROTOCOL_VERSIONS

    if client.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return
    capabilities = client.server_capabilities
    if capabilities.tools is None or not capabilities.tools.list_changed:
        return
    try:
        async with client.listen(tools_list_changed=True) as subscription:
            async for _event in subscription:
                changed()
    except Exception as exc:  # no stream: the list is read again on restart only
        log.info("MCP: no tool list updates (%s)", describe_error(exc))


@contextlib.asynccontextmanager
async def _connect(server: McpServer, tail: StderrTail) -> Any:
    """The SDK client of ``server``'s config (entered and left by the owner task only); a
    stdio server's stderr goes to ``tail``."""
    import mcp_types
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    config = server.config

    async def on_message(message: Any) -> None:
        if isinstance(message, mcp_types.ToolListChangedNotification):
            server.tools_changed()

    async with contextlib.AsyncExitStack() as stack:
        target: Any
        if config.transport == "http":
            from mcp.client.streamable_http import streamable_http_client
            from mcp.shared._httpx_utils import create_mcp_http_client

            http = await stack.enter_async_context(
                create_mcp_http_client(headers=dict(config.headers))
            )
            target = streamable_http_client(config.url or "", http_client=http)
        else:
            guarded = guarded_argv(config.command or "", config.args)
            params = StdioServerParameters(
                command=guarded[0],
                args=guarded[1:],
                env=dict(config.env),
                cwd=config.cwd,
            )
            stack.push_async_callback(tail.close)  # after the client: the process is gone
            target = stdio_client(params, errlog=tail.writer())
        client = Client(target, message_handler=on_message, cache=None)
        yield await stack.enter_async_context(client)
