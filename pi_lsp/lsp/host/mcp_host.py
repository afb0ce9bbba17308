"""The language server's MCP servers: one ``McpHub`` for the server process, shared by its
sessions, configured from ``.mcp.json`` at the first workspace root, the user's
``~/.config/mcp/mcp.json`` and the ``pi.mcpServers`` setting (re-read before each run and for
``pi/mcp``), questions through the editor's ``Ask`` (``permissions.EditorAsk``:
``pi/requestPermission`` or a message box), the one that asks before ``bash`` too.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types

from ...ai.abort import AbortSignal
from ...mcp.config import load, parse_servers
from ...mcp.hub import McpHub
from ...mcp.permissions import McpPermissions, asking_trust
from ...mcp.toolset import McpToolset
from ...mcp.trust import TrustStore
from ...runtime.permissions import Answer, Ask, Question
from ...security.rules import RuleStore
from ...sessions.paths import data_dir, workspace_key
from ..bridge import ClientBridge
from ..settings import ClientFeatures, Settings
from .permissions import EditorAsk

log = logging.getLogger(__name__)


def trust_file(cwd: Path) -> Path:
    """``<data dir>/mcp-trust/<workspace-key>.json``: never inside the repository."""
    return data_dir() / "mcp-trust" / f"{workspace_key(cwd)}.json"


class McpHost:
    def __init__(
        self,
        bridge: ClientBridge,
        settings: Callable[[], Settings],
        roots: Callable[[], list[Path]],
        rules: RuleStore,
    ) -> None:
        self.bridge = bridge
        self.settings = settings
        self.roots = roots
        self.rules = rules
        self.features: ClientFeatures | None = None
        self._eager: asyncio.Task[None] | None = None
        root = self._root()
        self.hub = McpHub(trust=TrustStore(trust_file(root)) if root else None)
        self.reload()

    def _root(self) -> Path | None:
        roots = self.roots()
        return roots[0] if roots else None

    def reload(self) -> None:
        """Read the configuration again (only changed servers restart)."""
        setting = parse_servers(self.settings().mcp_servers, "settings", "pi.mcpServers")
        self.hub.configure(load(self._root(), [setting]))

    # --------------------------------------------------------------- per session

    def ask_for(self, session_id: Callable[[], str]) -> Ask:
        """The editor's ``Ask`` (``permissions.EditorAsk``) in the name of ``session_id()``."""

        async def ask(question: Question, signal: AbortSignal | None) -> Answer:
            return await EditorAsk(self.bridge, lambda: self.features, session_id())(
                question, signal
            )

        return ask

    def attach(self, session_id: Callable[[], str]) -> tuple[McpPermissions, McpToolset]:
        ask = self.ask_for(session_id)
        permissions = McpPermissions(
            ask=ask, setting=lambda: self.settings().permissions.mcp, rules=self.rules
        )
        toolset = McpToolset(self.hub, ask_trust=asking_trust(ask), notify=self._warn)
        return permissions, toolset

    def start_eager(self, session_id: Callable[[], str]) -> None:
        """Once, at start-up: start the servers configured ``eager`` (their trust question,
        if any, goes through ``session_id``'s prompt)."""
        if self._eager is None:
            loop = asyncio.get_running_loop()  # RuntimeError outside the server's loop
            ask = asking_trust(self.ask_for(session_id))
            self._eager = loop.create_task(self.hub.start_eager(ask), name="mcp eager start")

    def _warn(self, text: str) -> None:
        self.bridge.show_message(types.MessageType.Warning, text)

    # -------------------------------------------------------------------- views

    def wire(self) -> dict[str, Any]:
        return self.hub.to_wire()

    async def restart(self, name: str, session_id: str) -> bool:
        self.reload()
        ask = self.ask_for(lambda: session_id)
        return await self.hub.restart(name, asking_trust(ask))

    async def aclose(self) -> None:
        await self.hub.aclose()
