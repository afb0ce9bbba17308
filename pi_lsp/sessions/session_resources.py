"""A session's project resources (docs/context.md), as part of ``AgentSession``: what the
user types as ``/skill:name args`` or ``/template args`` is expanded before it reaches the
model — in ``prompt``, ``steer`` and ``follow_up`` alike — and the resources are reloaded at
the start of each prompted run when one of their files changed (never mid-turn), or at once
by ``reload_resources``.

The runtime attaches them (``attach_resources``) with the callback that applies a reload to
the agent (system prompt, the skill directories the read tools may read). Must not import
pygls/lsprotocol or ``pi_lsp.lsp``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import TYPE_CHECKING

from ..agent.messages import AgentMessage
from ..ai import TextContent, UserMessage
from ..resources import Expansion, ProjectResources, Resources
from .events import ResourceNoticeEvent, ResourcesUpdateEvent, SessionEvent

if TYPE_CHECKING:
    from ..agent import Agent

log = logging.getLogger("pi_lsp.sessions")
ResourcesApplier = Callable[[Resources], None]
BUILTIN_COMMANDS: frozenset[str] = frozenset({"review"})
"""``/names`` every front end handles itself: ``/review`` (docs/review.md)."""


class SessionResourcesMixin:
    agent: Agent
    session_id: str
    project_resources: ProjectResources | None
    builtin_commands: frozenset[str]
    """``/names`` the front end handles itself: never expanded, never called unknown."""
    _apply_resources: ResourcesApplier | None
    refresh_before_prompt: bool
    """Check the resources' files before each prompted run (``False``: a ``task`` child,
    which uses what its root checked at the start of the root's run)."""

    if TYPE_CHECKING:

        def _notify(self, event: SessionEvent) -> None: ...

    def _init_resources(self) -> None:
        self.project_resources = None
        self.builtin_commands = BUILTIN_COMMANDS
        self._apply_resources = None
        self.refresh_before_prompt = True

    @property
    def resources(self) -> Resources | None:
        """What is loaded now (``None``: the session has no project resources)."""
        project = self.project_resources
        return project.current if project is not None else None

    def attach_resources(self, project: ProjectResources, apply: ResourcesApplier) -> None:
        """Use ``project`` for expansion and reloads; ``apply`` puts a (re)load into the
        agent. Applied once now."""
        self.project_resources = project
        self._apply_resources = apply
        apply(project.current)

    def reload_resources(self) -> Resources | None:
        """Load the resources again now (``pi/reload``, ``/reload``); used from the next model
        call on. Tells the listeners (``resources_update``)."""
        project = self.project_resources
        if project is None:
            return None
        project.reload()
        self._resources_changed(project)
        return project.current

    def set_resources_trust(self, trusted: bool) -> Resources | None:
        """The project's trust changed: its protected files load (or stop loading) from the
        next model call on."""
        project = self.project_resources
        if project is None:
            return None
        project.set_trusted(trusted)
        self._resources_changed(project)
        return project.current

    def refresh_resources(self) -> bool:
        """Reload when a file changed (the start of each prompted run); whether it did."""
        project = self.project_resources
        if project is None:
            return False
        try:
            changed = project.refresh()
        except Exception:  # a reload must never stop a run
            log.exception("session %s: reloading resources failed", self.session_id)
            return False
        if changed:
            self._resources_changed(project)
        return changed

    def _resources_changed(self, project: ProjectResources) -> None:
        if self._apply_resources is not None:
            try:
                self._apply_resources(project.current)
            except Exception:
                log.exception("session %s: applying resources failed", self.session_id)
        self._notify(ResourcesUpdateEvent(project.payload()))

    def expand_text(self, text: str) -> Expansion:
        """``text`` expanded against the current resources (a warning goes to the listeners
        as ``resource_notice``)."""
        project = self.project_resources
        if project is None:
            return Expansion(text, "none")
        expansion = project.expand(text, self.builtin_commands)
        if expansion.warning:
            self._notify(ResourceNoticeEvent(expansion.warning))
        return expansion

    def expand_message(self, message: AgentMessage) -> AgentMessage:
        """A user message whose text starts with ``/`` expanded (its images kept)."""
        if self.project_resources is None or not isinstance(message, UserMessage):
            return message
        content = message.content
        if isinstance(content, str):
            if not content.startswith("/"):
                return message
            expanded = self.expand_text(content)
            if expanded.kind == "none":
                return message
            return message.model_copy(update={"content": expanded.text})
        first = content[0] if content else None
        if not isinstance(first, TextContent) or not first.text.startswith("/"):
            return message
        expanded = self.expand_text(first.text)
        if expanded.kind == "none":
            return message
        block = first.model_copy(update={"text": expanded.text})
        return message.model_copy(update={"content": [block, *content[1:]]})
