"""Project trust (docs/context.md#project-trust) asked the way ``.mcp.json`` trust is: a
``session/request_permission`` to the client, at a session's first prompt — before that
prompt's resources load, and while a prompt is outstanding (clients such as CodeCompanion
answer nothing outside one).

One question per directory per process (``TrustGate``): sessions of a directory already
decided (saved, a flag, or answered in this process — "this session only" answers count for
the process) take the decision without asking, and a second session's first prompt waits for
the first one's question instead of asking again. Options: ``allow_always`` (remembered),
``allow_once`` (this process), ``reject_always`` (remembered as untrusted); ``cancelled``
leaves the project untrusted without remembering it. Imports the SDK's schema and
``runtime``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from ..agent.asking import Answer, AnswerKind, Question
from ..ai.abort import AbortSignal
from ..runtime import settle_project_trust

log = logging.getLogger("pi_lsp.acp")
AcpAsk = Callable[[ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse]]
_KINDS: dict[str, Any] = {
    "allowAlways": "allow_always",
    "allowSession": "allow_once",
    "deny": "reject_always",
}


class TrustNotGiven(Exception):
    """The client cancelled the question: untrusted, nothing remembered."""


def trust_ask(ask: AcpAsk) -> Callable[[Question, AbortSignal | None], Awaitable[Answer]]:
    """The trust question as an ACP permission request."""

    async def question_to_client(question: Question, signal: AbortSignal | None) -> Answer:
        offered = [o for o in question.options if o.kind in _KINDS]
        options = [
            PermissionOption(option_id=_KINDS[o.kind], name=o.label, kind=_KINDS[o.kind])
            for o in offered
        ]
        tool_call = ToolCallUpdate(
            tool_call_id=question.call_id,
            title=question.title,
            kind="other",
            status="pending",
            raw_input={"detail": question.detail},
        )
        response = await ask(tool_call, options)
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            raise TrustNotGiven("cancelled")
        chosen = outcome.option_id
        kind: AnswerKind | None = next((o.kind for o in offered if _KINDS[o.kind] == chosen), None)
        return Answer(kind or "deny")

    return question_to_client


@dataclass(slots=True)
class TrustGate:
    """The process's project-trust answers, one question per directory."""

    decided: dict[str, bool] = field(default_factory=dict)
    _locks: dict[str, asyncio.Lock] = field(default_factory=dict)

    async def settle(self, session: Any, ask: AcpAsk) -> None:
        """Before ``session``'s first prompt: its project's trust, asked when undecided."""
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
                outcome = await settle_project_trust(session, trust_ask(ask))
            except Exception:  # nothing about trust may stop a prompt: untrusted
                log.exception("project trust for %s", cwd)
                return
            if outcome is not None and outcome.source in ("answer", "no-one-to-ask"):
                self.decided[cwd] = outcome.load_project
