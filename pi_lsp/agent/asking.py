"""The neutral shape of a question a ``before_tool_call`` hook puts to the user: the
``Question`` (its options), the ``Answer`` and the ``Ask`` that carries one to the other.

The rules that decide whether to ask live beside the tools they gate (``runtime/permissions``
for ``bash``, ``mcp/permissions`` for MCP tools and the project servers' trust); each front
end provides only its ``Ask``: ``pi/requestPermission`` or a message box in the editor
(``lsp/host/permissions.py``), ``session/request_permission`` in ACP
(``acp/permissions.py``), the terminal in ``pi-lsp run`` (``cli/output.py``). A front end
offers the options its user interface has (ACP has no "for this session", the editor no
"deny for this session") and maps the user's choice back to an option's ``kind``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Literal

from ..ai.abort import AbortSignal

Kind = Literal["allowOnce", "allowSession", "allowAlways", "deny", "denySession"]
"""What an option means: run it this once / for the rest of this session / always in this
workspace (a rule in the workspace's rule store); block it once / for the rest of this
session."""
AnswerKind = Literal["allowOnce", "allowSession", "allowAlways", "deny", "denySession", "cancel"]
"""An option's kind, or ``cancel``: the user stopped the turn (or it was aborted) before
answering."""


@dataclass(frozen=True, slots=True)
class Option:
    id: str
    label: str
    kind: Kind


@dataclass(frozen=True, slots=True)
class Question:
    call_id: str
    tool: str
    title: str
    detail: str
    options: list[Option]
    patterns: tuple[str, ...] = ()
    """The rule patterns an "always" would record (``bash``: ``git status``…), for a front end
    that words its options itself."""
    shown: str = ""
    """The command as shown to the user (``security.prompt_text.shown_command``)."""
    cut: bool = False
    """``shown`` was cut (or the command cannot be split safely): no "always" is offered."""
    agent_name: str | None = None
    """Asked on behalf of a ``task`` child: its agent's name (the ``title`` starts with
    ``[agent] ``); ``None`` for the session's own calls."""
    child_session_id: str | None = None
    """The child session whose tool call this is (the question still goes to the root's
    client: docs/subagents.md#permissions)."""


def attributed(question: Question, agent: str, child_session_id: str) -> Question:
    """``question`` as asked for a ``task`` child: ``[agent] `` before its title."""
    return replace(
        question,
        title=f"[{agent}] {question.title}",
        agent_name=agent,
        child_session_id=child_session_id,
    )


@dataclass(frozen=True, slots=True)
class Answer:
    kind: AnswerKind
    reason: str | None = None
    """What the user said with a denial (the model reads it)."""
    every_call: bool = False
    """Allow every later call of this tool in this session (the editor's message box and the
    terminal's ``a=always``), not only the ones the question's patterns match."""


Ask = Callable[[Question, AbortSignal | None], Awaitable[Answer]]
