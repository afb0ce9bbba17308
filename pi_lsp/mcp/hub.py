"""The MCP servers of one front end: configured, trusted, started lazily, stopped together.

``McpHub`` is shared by the sessions of a process (one process per server, not one per
session). ``prepare()`` runs before a run's first model request: it asks the trust question
for undecided project servers, starts the trusted ones (``eager`` ones start at
``start_eager``), and waits at most the start-up timeout for them; a slower server goes on
starting in the background and its tools come at a later run. ``status()`` is the effective
list for ``pi/mcp``, ``restart(name)`` its action; ``aclose()`` stops every server.
"""

from __future__ import annotations

import asyncio
import importlib.util
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .config import LoadedConfig, McpServerConfig
from .server import STARTUP_TIMEOUT_S, McpServer
from .trust import TrustStore

log = logging.getLogger(__name__)

INSTALL_HINT = "pip install 'pi-lsp[mcp]'"
SDK_MISSING = (
    "pi: MCP servers are configured ({names}) but the MCP library is not installed: "
    f"{INSTALL_HINT} (or: pipx inject pi-lsp mcp; uv tool install 'pi-lsp[mcp]')."
)
UNTRUSTED = "not started: the project's .mcp.json servers were not allowed in this workspace"

AskTrust = Callable[[list[McpServerConfig]], Awaitable[bool]]
"""Asks the user whether the project's servers may run; ``True`` allows them."""


def sdk_available() -> bool:
    return importlib.util.find_spec("mcp") is not None


@dataclass(frozen=True, slots=True)
class ServerStatus:
    name: str
    source: str
    transport: str
    target: str
    state: str
    message: str | None
    tool_count: int

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "source": self.source,
            "transport": self.transport,
            "target": self.target,
            "state": self.state,
            "toolCount": self.tool_count,
        }
        if self.message:
            out["message"] = self.message
        return out


class McpHub:
    def __init__(
        self,
        *,
        trust: TrustStore | None = None,
        on_change: Callable[[], None] = lambda: None,
        startup_timeout: float = STARTUP_TIMEOUT_S,
        sdk: bool | None = None,
        remember_trust: bool = True,
    ) -> None:
        self.trust = trust
        self.remember_trust = remember_trust
        """``False``: a trust answer holds for this process only (``pi-lsp run --yes``)."""
        self.on_change = on_change
        self.startup_timeout = startup_timeout
        self.sdk = sdk_available() if sdk is None else sdk
        self.servers: dict[str, McpServer] = {}
        self.configs: list[McpServerConfig] = []
        self.problems: list[str] = []
        self._denied: set[str] = set()
        self._allowed: set[str] = set()
        """This process's trust answers (also when they are not remembered)."""
        self._trust_lock = asyncio.Lock()
        self._sdk_noted = False
        self._closed = False

    # ------------------------------------------------------------------- config

    def configure(self, loaded: LoadedConfig) -> list[asyncio.Task[None]]:
        """Take the effective configuration; a changed or removed server is stopped (the
        returned tasks finish stopping them)."""
        stopping: list[asyncio.Task[None]] = []
        wanted = {c.name: c for c in loaded.servers}
        for name, server in list(self.servers.items()):
            if wanted.get(name) != server.config:
                del self.servers[name]
                stopping.append(asyncio.ensure_future(server.stop()))
        for name, config in wanted.items():
            if name not in self.servers and not config.disabled:
                self.servers[name] = McpServer(config, on_change=self.on_change)
        self.configs = list(loaded.servers)
        self.problems = list(loaded.problems)
        self.on_change()
        return stopping

    def enabled(self) -> list[McpServer]:
        return [s for s in self.servers.values() if not s.config.disabled]

    def sdk_notice(self) -> str | None:
        """The one message when servers are configured and the SDK is missing (else None)."""
        if self.sdk or self._sdk_noted or not self.enabled():
            return None
        self._sdk_noted = True
        return SDK_MISSING.format(names=", ".join(s.name for s in self.enabled()))

    # ---------------------------------------------------------------- starting

    def _decision(self, server: McpServer) -> str | None:
        if server.name in self._denied:
            return "deny"
        if server.name in self._allowed:
            return "allow"
        return self.trust.decision(server.config) if self.trust else None

    async def _trusted(self, ask: AskTrust | None) -> list[McpServer]:
        """The servers that may start; undecided project servers are asked about first (one
        question for all of them, even when two sessions start at once)."""
        servers = self.enabled()
        projects = [s for s in servers if s.config.source == "project"]
        if any(self._decision(s) is None for s in projects):
            async with self._trust_lock:
                still = [s for s in projects if self._decision(s) is None]
                if still:
                    allowed = await ask([s.config for s in still]) if ask else False
                    (self._allowed if allowed else self._denied).update(s.name for s in still)
                    if self.trust is not None and ask is not None and self.remember_trust:
                        try:
                            self.trust.remember(
                                [s.config for s in still], "allow" if allowed else "deny"
                            )
                        except OSError as exc:
                            log.error("could not save the MCP trust decision: %s", exc)
        trusted = []
        for server in servers:
            if server.config.source == "project" and self._decision(server) != "allow":
                if server.message != UNTRUSTED:
                    server.state, server.message = "failed", UNTRUSTED
                    self.on_change()
                continue
            trusted.append(server)
        return trusted

    async def prepare(self, ask: AskTrust | None) -> None:
        """Before a run: trust, start, and wait (bounded) for the servers."""
        if self._closed or not self.sdk or not self.enabled():
            return
        servers = await self._trusted(ask)
        if servers:
            await asyncio.gather(*(s.wait_ready(self.startup_timeout) for s in servers))

    async def start_eager(self, ask: AskTrust | None) -> None:
        if self._closed or not self.sdk or not any(s.config.eager for s in self.enabled()):
            return
        for server in await self._trusted(ask):
            if server.config.eager:
                server.start()

    def ready(self) -> list[McpServer]:
        return [s for s in self.enabled() if s.state == "ready"]

    # -------------------------------------------------------------------- views

    def status(self) -> list[ServerStatus]:
        out = []
        for config in self.configs:
            server = self.servers.get(config.name)
            if config.disabled or server is None:
                state, message, count = "disabled", None, 0
            elif not self.sdk:
                state, message, count = "failed", f"the MCP library is missing: {INSTALL_HINT}", 0
            else:
                state, message = server.state, server.message
                count = len(server.tools) if server.state == "ready" else 0
            out.append(
                ServerStatus(
                    name=config.name,
                    source=config.source,
                    transport=config.transport,
                    target=config.describe(),
                    state=state,
                    message=message,
                    tool_count=count,
                )
            )
        return out

    def to_wire(self) -> dict[str, Any]:
        return {
            "servers": [s.to_wire() for s in self.status()],
            "problems": list(self.problems),
            "sdkInstalled": self.sdk,
        }

    async def restart(self, name: str, ask: AskTrust | None = None) -> bool:
        """Restart one server (a denied project server is asked about again)."""
        server = self.servers.get(name)
        if server is None:
            return False
        if server.config.source == "project" and name in self._denied and ask is not None:
            self._denied.discard(name)  # asked again
            self._allowed.discard(name)
            if self.trust is not None:
                self.trust.forget([server.config])
        await server.stop()
        server.message = None
        if self.sdk:
            trusted = await self._trusted(ask)
            if server in trusted:
                await server.restart()
        self.on_change()
        return True

    async def aclose(self) -> None:
        self._closed = True
        servers = list(self.servers.values())
        if servers:
            await asyncio.gather(*(s.stop() for s in servers), return_exceptions=True)
