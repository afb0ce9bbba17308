"""Project trust (docs/context.md#project-trust) asked the way ``.mcp.json`` trust is: a
``session/request_permission`` to the client, at a session's first prompt — before that
prompt's resources load, and while a prompt is outstanding (clients such as CodeCompanion
answer nothing outside one).

One question per directory per process (``runtime.trust_gate.TrustGate``). Options:
``allow_always`` (remembered), ``allow_once`` (this process), ``reject_always`` (remembered
as untrusted); ``cancelled`` leaves the project untrusted without remembering it on disk.
Imports the SDK's schema and the neutral question types.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from ..ai.abort import AbortSignal
from ..runtime.permissions import Answer, AnswerKind, Question

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
