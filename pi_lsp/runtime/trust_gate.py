"""Project trust asked once per directory in a process (docs/context.md#project-trust).

A front end that serves many sessions (the language server, ``pi-lsp acp``) keeps one
``TrustGate`` and calls ``settle(session, ask)`` before a prompt's resources load: a directory
already decided in this process (answered — "this session only" answers count for the process
—, saved, or a flag) takes the decision without asking; a second session's prompt waits for
the first one's question instead of asking again. A project with nothing that needs trust is
not remembered, so a protected file that appears later is asked about at the next prompt.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from ..agent.asking import Ask
from .project_context import settle_project_trust

log = logging.getLogger(__name__)


@dataclass(slots=True)
class TrustGate:
    """The process's project-trust decisions, one question per directory."""

    decided: dict[str, bool] = field(default_factory=dict)
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    async def settle(self, session: Any, ask: Ask | None) -> None:
        """Before ``session``'s prompt: its project's trust, asked when undecided. Never
        raises (a failure leaves the project untrusted)."""
        project = getattr(session, "project_resources", None)
        if project is None:
            return
        cwd = project.cwd
        lock = self._locks.setdefault(cwd, asyncio.Lock())
        async with lock:
            known = self.decided.get(cwd)
            if known is not None:
                if known != project.trusted:
                    session.set_resources_trust(known)
                return
            try:
                outcome = await settle_project_trust(session, ask)
            except Exception:  # nothing about trust may stop a prompt: untrusted
                log.exception("project trust for %s", cwd)
                return
            if outcome is not None and outcome.source != "not-needed":
                self.decided[cwd] = outcome.load_project
