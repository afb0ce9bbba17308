"""ACP's side of the bash permission question: ``PermissionBridge.ask`` puts the question of
the one set of bash rules (``runtime/permissions.py``: ``deny`` blocks, ``allow`` runs; in
``ask`` mode the workspace's "always" rules — the same file the language server uses, in the
user's data directory — and this session's "never" patterns are checked, and only then the
client is asked) to the client as ``session/request_permission``, with the ACP option kinds:

- ``allow_once`` runs the command;
- ``allow_always`` records *our* workspace rule for the suggested prefix (``pytest``,
  ``git status``…) and runs it; it is offered only when there is a safe prefix;
- ``reject_once`` blocks this one call — the model reads why and the turn goes on;
- ``reject_always`` blocks it and every later command with the same prefix in this session;
- a ``cancelled`` outcome (the user stopped the turn) blocks the call and aborts the run.

A question is withdrawn when the run is aborted (``session/cancel``): we stop waiting, the
call is blocked, and a late answer is ignored. A client that errors or disconnects counts as
a rejection. Imports ``runtime.permissions`` and the SDK's schema only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    PermissionOptionKind,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from ..ai.abort import AbortSignal, done_before_abort
from ..runtime.permissions import Answer, AnswerKind, BashRules, Question
from ..security.rules import RuleStore
from . import tool_view as view

log = logging.getLogger("pi_lsp.acp")

BashMode = Literal["ask", "allow", "deny"]
OptionIds = Literal["option", "kind"]
Ask = Callable[[ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse]]
ChildAsk = Callable[
    [str, ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse]
]
KINDS: dict[str, AnswerKind] = {
    "allow_once": "allowOnce",
    "allow_always": "allowAlways",
    "reject_once": "deny",
    "reject_always": "denySession",
}


def _quoted(patterns: list[str]) -> str:
    return ", ".join(f"`{p}`" for p in patterns)


def options_for(patterns: list[str] | None) -> list[PermissionOption]:
    options = [PermissionOption(option_id="allow_once", name="Allow once", kind="allow_once")]
    if patterns:
        options.append(
            PermissionOption(
                option_id="allow_always",
                name=f"Always allow {_quoted(patterns)} in this workspace",
                kind="allow_always",
            )
        )
    options.append(PermissionOption(option_id="reject_once", name="Deny", kind="reject_once"))
    if patterns:
        options.append(
            PermissionOption(
                option_id="reject_always",
                name=f"Deny {_quoted(patterns)} for the rest of this session",
                kind="reject_always",
            )
        )
    return options


def bash_rules(
    bridge: PermissionBridge, rules: RuleStore, mode: Callable[[], BashMode]
) -> BashRules:
    """One session's bash rules, asking the client through ``bridge``."""
    return BashRules(ask=bridge.ask, mode=mode, rules=rules)


@dataclass(slots=True)
class PermissionBridge:
    """One per session: the client's ``session/request_permission`` as the rules' ``Ask``."""

    request: Ask
    on_cancelled: Callable[[], None] = lambda: None
    """Called when the user answered ``cancelled``: the session aborts the run."""
    pending: dict[str, asyncio.Task[RequestPermissionResponse]] = field(default_factory=dict)
    request_for_child: ChildAsk | None = None
    """A ``task`` child's question under the child's id (a client that declared
    ``subagents``); ``None``: on the parent, titled ``[agent] …``."""

    async def ask(self, question: Question, signal: AbortSignal | None) -> Answer:
        title = view.title_of("bash", {"command": question.shown})
        child = question.child_session_id
        if question.agent_name and (child is None or self.request_for_child is None):
            title = f"[{question.agent_name}] {title}"
        tool_call = ToolCallUpdate(
            tool_call_id=question.call_id,
            title=title,
            kind="execute",
            status="pending",
            raw_input={"command": question.detail},
        )
        options = options_for(list(question.patterns) or None)
        answer = await self._wait(question.call_id, tool_call, options, signal, child)
        if answer is None:
            return Answer("cancel")
        outcome = answer.outcome
        if not isinstance(outcome, AllowedOutcome):  # "cancelled": stop the turn
            self.on_cancelled()
            return Answer("cancel")
        return Answer(KINDS.get(outcome.option_id, "deny"))

    async def ask_choice(
        self, question: Question, kinds: Mapping[str, PermissionOptionKind], ids: OptionIds
    ) -> Answer | None:
        """A question that is not a command's (a project's trust, an MCP server's trust or
        tool call) as ``session/request_permission``: the question's options that ``kinds``
        maps to an ACP option kind, each with the id ``ids`` says (``"option"``: the
        question's own, ``"kind"``: the ACP kind); a ``task`` child's question goes under the
        child's id when the client declared ``subagents``. The answer (an unknown option:
        ``deny``); ``None``: the client answered ``cancelled``."""
        offered = [o for o in question.options if o.kind in kinds]
        options = [
            PermissionOption(
                option_id=o.id if ids == "option" else kinds[o.kind],
                name=o.label,
                kind=kinds[o.kind],
            )
            for o in offered
        ]
        child = question.child_session_id
        for_child = self.request_for_child if child is not None else None
        title = question.title
        if for_child is not None:  # shown under the child: as its own
            title = title.removeprefix(f"[{question.agent_name}] ")
        tool_call = ToolCallUpdate(
            tool_call_id=question.call_id,
            title=title,
            kind="other",
            status="pending",
            raw_input={"detail": question.detail},
        )
        if for_child is not None and child is not None:
            response = await for_child(child, tool_call, options)
        else:
            response = await self.request(tool_call, options)
        outcome = response.outcome
        if not isinstance(outcome, AllowedOutcome):
            return None
        chosen = next(
            (
                o.kind
                for o, option in zip(offered, options, strict=True)
                if option.option_id == outcome.option_id
            ),
            None,
        )
        return Answer(chosen or "deny")

    async def _wait(
        self,
        call_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        signal: AbortSignal | None,
        child: str | None = None,
    ) -> RequestPermissionResponse | None:
        """The client's answer, or ``None`` when the run was aborted first or the client
        failed."""
        if child is not None and self.request_for_child is not None:
            task = asyncio.ensure_future(self.request_for_child(child, tool_call, options))
        else:
            task = asyncio.ensure_future(self.request(tool_call, options))
        self.pending[call_id] = task
        try:
            done = await done_before_abort(task, signal)
        finally:
            self.pending.pop(call_id, None)
        if not done:
            task.cancel()
            return None
        if task.cancelled():
            return None
        if task.exception() is not None:
            log.info("permission not given: %s", task.exception())
            return RequestPermissionResponse(
                outcome={"outcome": "selected", "optionId": "reject_once"}
            )
        return task.result()

    def withdraw_all(self) -> None:
        """Stop waiting for every pending question (the answers no longer matter)."""
        for task in list(self.pending.values()):
            task.cancel()
