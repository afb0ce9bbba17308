"""Project trust (docs/context.md#project-trust) asked the way ``.mcp.json`` trust is: a
``session/request_permission`` to the client, at a session's first prompt — before that
prompt's resources load, and while a prompt is outstanding (clients such as CodeCompanion
answer nothing outside one).

One question per directory per process (``runtime.trust_gate.TrustGate``). Options:
``allow_always`` (remembered), ``allow_once`` (this process), ``reject_always`` (remembered
as untrusted); ``cancelled`` leaves the project untrusted without remembering it on disk.
Asked through the session's ``PermissionBridge`` (``acp/permissions.py``).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..ai.abort import AbortSignal
from ..runtime.permissions import Answer, Question
from .permissions import PermissionBridge

_KINDS: dict[str, Any] = {
    "allowAlways": "allow_always",
    "allowSession": "allow_once",
    "deny": "reject_always",
}


class TrustNotGiven(Exception):
    """The client cancelled the question: untrusted, nothing remembered."""


def trust_ask(
    bridge: PermissionBridge,
) -> Callable[[Question, AbortSignal | None], Awaitable[Answer]]:
    """The trust question as an ACP permission request (the bridge's ``ask_choice``)."""

    async def question_to_client(question: Question, signal: AbortSignal | None) -> Answer:
        answer = await bridge.ask_choice(question, _KINDS, ids="kind")
        if answer is None:
            raise TrustNotGiven("cancelled")
        return answer

    return question_to_client
