"""The language server's side of the project's context, skills and templates
(docs/context.md): the slash commands it offers (``pi/commands``), what a session loaded
(``pi/context``), a forced reload (``pi/reload``), and project trust asked through the editor
(``EditorAsk``: ``pi/requestPermission`` or a message box, as ``.mcp.json`` trust is) once per
directory, before a prompt's resources load (``TrustGate``).

``BUILTINS`` are the server's own commands (each a request: ``pi/compact``, ``pi/context``,
``pi/export``, ``pi/reload``, ``pi/codeReview``); a session never expands them nor calls them
unknown. Without a session (a client completing ``/`` before its first prompt) the
workspace's resources are loaded with the trust decided before, asking nobody.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from ...resources import ProjectResources, ResourcesPayload
from ...runtime import load_project_resources, saved_trust
from ...runtime.trust_gate import TrustGate
from ..bridge import ClientBridge
from ..protocol.contract import CommandInfo, CommandsResult, ContextResult
from ..settings import ClientFeatures, Settings
from .agent_setup import run_config
from .permissions import EditorAsk

BUILTINS: dict[str, str] = {
    "compact": "Summarise the conversation so far to free context",
    "context": "Show the context files, skills and prompt templates loaded for this session",
    "export": "Write this session as a self-contained HTML page",
    "reload": "Load the context files, skills and prompt templates again",
    "review": "Code review of the changes: findings with locations",
}


def workspace_resources(cwd: str | Path, settings: Settings) -> ProjectResources:
    """The workspace's resources when no session exists yet (nothing is asked)."""
    options = run_config(settings).resources
    trusted = saved_trust(cwd, options).load_project
    return load_project_resources(cwd, options, trusted=trusted)


def commands_result(project: ProjectResources | None, session_id: str | None) -> CommandsResult:
    from ...resources import list_commands

    commands = project.commands(BUILTINS) if project is not None else list_commands(None, BUILTINS)
    return CommandsResult(
        session_id=session_id,
        commands=[CommandInfo.model_validate(c.model_dump()) for c in commands],
    )


def context_result(payload: ResourcesPayload, session_id: str | None) -> ContextResult:
    return ContextResult.model_validate({**payload.model_dump(), "session_id": session_id})


class ProjectTrust:
    """The server's one ``TrustGate``: ``settle`` before a prompt's text is expanded."""

    def __init__(self, bridge: ClientBridge, features: Callable[[], ClientFeatures | None]):
        self.gate = TrustGate()
        self._bridge = bridge
        self._features = features

    async def settle(self, session: Any, session_id: str) -> None:
        await self.gate.settle(session, EditorAsk(self._bridge, self._features, session_id))
