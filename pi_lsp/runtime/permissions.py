"""The ``bash`` permission rules, written once for every front end (a ``before_tool_call``
hook, one ``BashRules`` per session); each front end gives only its ``Ask``
(``agent/asking.py``): how a question reaches its user.

Decision order for one command: the mode (``deny`` blocks; ``allow`` runs; ``sandbox`` runs
when the run's bash tool really runs in the sandbox, and asks otherwise); then the answers
that stick — every command of this session (an ``every_call`` answer), this session's exact
commands and patterns, the workspace's "always" rules (``security.rules``, kept in the user's
data directory, never in the repository) — and this session's "never" patterns; only then a
question. The question offers allow once, for this session (not for a command that was cut),
always in this workspace and never for this session (both only for a command with safe
patterns), and deny; a front end offers the ones its user interface has. An "always" is
written to the rule file, which stays the truth: revoking the rule makes the next such
command ask again, in this session too. A prompt that fails counts as a denial; a ``cancel``
(the turn was stopped first) blocks the call. Pending questions are listed (``pi/state``).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ..agent.asking import Answer, AnswerKind, Ask, Kind, Option, Question, attributed
from ..agent.types import BeforeToolCallContext, BeforeToolCallResult
from ..ai.abort import AbortSignal
from ..security.prompt_text import shown_command
from ..security.rules import RuleStore, command_allowed, suggest_patterns
from ..sessions.paths import data_dir, workspace_key
from .config import BashMode
from .sandboxing import runs_sandboxed

log = logging.getLogger(__name__)

__all__ = [
    "CANCELLED",
    "DENIED",
    "DENIED_BY_SETTING",
    "Answer",
    "AnswerKind",
    "Ask",
    "BashRules",
    "Kind",
    "Option",
    "Question",
    "bash_question",
    "command_of",
    "quoted",
    "read_only_run_rules",
    "rules_file",
]
"""The neutral question types (``agent/asking.py``) come with the rules: a front end imports
both from here."""

DENIED = "The user denied permission to run this command. It was not run."
CANCELLED = "The user cancelled the turn. The command was not run."
DENIED_BY_SETTING = "Running bash commands is disabled by the user's settings. It was not run."


def rules_file(cwd: Path) -> Path:
    """``<data dir>/permissions/<workspace-key>.json``: never inside the repository."""
    return data_dir() / "permissions" / f"{workspace_key(cwd)}.json"


def command_of(ctx: BeforeToolCallContext) -> str:
    command: Any = getattr(ctx.args, "command", None)
    if command is None:
        command = ctx.tool_call.arguments.get("command", "")
    return str(command)


def quoted(patterns: list[str] | tuple[str, ...]) -> str:
    return ", ".join(f'"{p}"' for p in patterns)


def bash_question(call_id: str, command: str) -> Question:
    """The question before ``command`` runs, with every option a front end may offer."""
    shown = shown_command(command)  # nothing can hide in it (escapes, padding)
    patterns = [] if shown.cut else (suggest_patterns(command) or [])
    options = [Option("allowOnce", "Allow once", "allowOnce")]
    if not shown.cut:
        what = f"Allow {quoted(patterns)}" if patterns else "Allow this command"
        options.append(Option("allowSession", f"{what} for this session", "allowSession"))
    if patterns:
        options.append(
            Option(
                "allowAlways",
                f"Always allow {quoted(patterns)} in this workspace",
                "allowAlways",
            )
        )
    options.append(Option("deny", "Deny", "deny"))
    if patterns:
        options.append(
            Option(
                "denySession",
                f"Deny {quoted(patterns)} for the rest of this session",
                "denySession",
            )
        )
    return Question(
        call_id=call_id,
        tool="bash",
        title=f"Run: {shown.text}",
        detail=command,
        options=options,
        patterns=tuple(patterns),
        shown=shown.text,
        cut=shown.cut,
    )


def read_only_run_rules(mode: Callable[[], BashMode]) -> BashRules:
    """The rules of a run whose ``bash`` lets through only commands proven read-only and
    that has nobody to ask (a code review, docs/review.md): ``deny`` still blocks every
    command; any other mode runs them without a question."""
    return BashRules(ask=None, mode=lambda: "deny" if mode() == "deny" else "allow")


@dataclass
class BashRules:
    """One per session: its mode, its answers that stick, its pending questions."""

    ask: Ask | None
    mode: Callable[[], BashMode] = lambda: "ask"
    rules: RuleStore | None = None
    notify: Callable[[str], object] = lambda _: None
    """Tells the user what went wrong (an "always" that could not be saved)."""
    denied: str = DENIED
    denied_by_setting: str = DENIED_BY_SETTING
    one_at_a_time: bool = False
    """Ask one question at a time (a terminal): a command waiting to be asked about is
    checked again once the question before it was answered."""
    always_allow: bool = False
    session_patterns: list[str] = field(default_factory=list)
    session_exact: set[str] = field(default_factory=set)
    never: list[str] = field(default_factory=list)
    pending: dict[str, dict[str, str]] = field(default_factory=dict)
    _lock: asyncio.Lock | None = None
    parent: BashRules | None = None
    """A ``task`` child's view (``for_child``): the root's rules, whose answers it shares."""
    child: tuple[str, str] | None = None
    """A ``task`` child's view: ``(agent name, child session id)``."""

    def for_child(self, agent: str, child_session_id: str) -> BashRules:
        """The rules of a ``task`` child: the same answers that stick (this session's
        patterns and "never"s, the workspace's rules, an "every command" answer — given by
        the child or the root, they hold for the whole tree), the same pending list and
        question order, and questions asked through the same ``Ask`` with ``[agent] ``
        before their title (docs/subagents.md#permissions)."""
        root = self.parent or self
        if root.one_at_a_time and root._lock is None:
            root._lock = asyncio.Lock()
        ask = root.ask

        async def child_ask(question: Question, signal: AbortSignal | None) -> Answer:
            assert ask is not None
            return await ask(attributed(question, agent, child_session_id), signal)

        return replace(
            root,
            ask=child_ask if ask is not None else None,
            parent=root,
            child=(agent, child_session_id),
        )

    def pending_list(self) -> list[dict[str, str]]:
        return list(self.pending.values())

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        """The agent's hook (never raises: a prompt that fails is a denial)."""
        if ctx.tool_call.name != "bash":
            return None
        mode = self.mode()
        if mode == "sandbox" and not runs_sandboxed(ctx.context.tools):
            mode = "ask"  # switched to sandbox during this run: its bash is not sandboxed yet
        if mode in ("allow", "sandbox"):
            return None
        if mode == "deny":
            return BeforeToolCallResult(block=True, reason=self.denied_by_setting)
        command = command_of(ctx)
        if not self.one_at_a_time:
            return await self._decide(ctx.tool_call.id, command, signal)
        if self._lock is None:
            self._lock = asyncio.Lock()
        async with self._lock:
            return await self._decide(ctx.tool_call.id, command, signal)

    def allowed_already(self, command: str) -> bool:
        if self.parent is not None and self.parent.always_allow:
            return True
        if self.always_allow or command in self.session_exact:
            return True
        if command_allowed(command, self.session_patterns):
            return True
        return self.rules is not None and self.rules.allows("bash", command)

    async def _decide(
        self, call_id: str, command: str, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        if self.allowed_already(command):
            return None
        if self.never and command_allowed(command, self.never):
            return BeforeToolCallResult(block=True, reason=self.denied)
        question = bash_question(call_id, command)
        answer = await self._ask(question, signal)
        patterns = list(question.patterns)
        if answer.kind == "cancel":
            return BeforeToolCallResult(block=True, reason=CANCELLED)
        if answer.kind in ("deny", "denySession"):
            if answer.kind == "denySession" and patterns:
                self.never += [p for p in patterns if p not in self.never]
            reason = (
                self.denied
                if not answer.reason
                else f"{self.denied} The user said: {answer.reason}"
            )
            return BeforeToolCallResult(block=True, reason=reason)
        if answer.every_call:
            (self.parent or self).always_allow = True
        elif answer.kind == "allowAlways" and patterns and self.rules is not None:
            try:
                await asyncio.to_thread(self.rules.add, "bash", patterns)
            except OSError as exc:
                log.error("could not save the permission rule: %s", exc)
                self.notify(f"pi: could not save the permission: {exc}")
                self._allow_for_session(command, patterns)
        elif answer.kind in ("allowSession", "allowAlways"):
            self._allow_for_session(command, patterns)
        return None

    def _allow_for_session(self, command: str, patterns: list[str]) -> None:
        if patterns:
            self.session_patterns += [p for p in patterns if p not in self.session_patterns]
        else:
            self.session_exact.add(command)

    async def _ask(self, question: Question, signal: AbortSignal | None) -> Answer:
        if self.ask is None:
            return Answer("deny")
        self.pending[question.call_id] = {
            "toolCallId": question.call_id,
            "tool": question.tool,
            "title": question.title,
        }
        if self.child is not None:  # asked for a task child: its title says which
            self.pending[question.call_id]["title"] = f"[{self.child[0]}] {question.title}"
            self.pending[question.call_id]["childSessionId"] = self.child[1]
        try:
            return await self.ask(question, signal)
        except Exception as exc:  # a prompt that fails is a "no"
            log.info("permission not given: %s", exc or type(exc).__name__)
            return Answer("deny")
        finally:
            self.pending.pop(question.call_id, None)
