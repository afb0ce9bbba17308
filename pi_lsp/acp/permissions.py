"""The permission bridge: our policy decides, ``session/request_permission`` asks the user.

A ``before_tool_call`` hook for one session. Only ``bash`` is gated (edits go through the
client's own review when it offers ``fs/write_text_file``). Policy order: ``deny`` blocks,
``allow`` runs; in ``ask`` mode the workspace's "always" rules (``security.rules``, the same
file the language server uses, in the user's data directory) and this session's "never"
patterns are checked, and only then the client is asked, with the ACP option kinds:

- ``allow_once`` runs the command;
- ``allow_always`` records *our* workspace rule for the suggested prefix (``pytest``,
  ``git status``…) and runs it; it is offered only when there is a safe prefix;
- ``reject_once`` blocks this one call — the model reads why and the turn goes on;
- ``reject_always`` blocks it and every later command with the same prefix in this session;
- a ``cancelled`` outcome (the user stopped the turn) blocks the call and aborts the run.

A question is withdrawn when the run is aborted (``session/cancel``): we stop waiting, the
call is blocked, and a late answer is ignored. A client that errors or disconnects counts as
a rejection. Imports ``security`` and ``sessions.paths`` and the SDK's schema only.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from acp.schema import (
    AllowedOutcome,
    PermissionOption,
    RequestPermissionResponse,
    ToolCallUpdate,
)

from ..agent.types import BeforeToolCallContext, BeforeToolCallResult
from ..ai.abort import AbortSignal, done_before_abort
from ..security.prompt_text import shown_command
from ..security.rules import RuleStore, command_allowed, suggest_patterns
from ..sessions.paths import data_dir, workspace_key
from . import tool_view as view

log = logging.getLogger("pi_lsp.acp")

BashMode = Literal["ask", "allow", "deny"]
DENIED = "The user denied permission to run this command. It was not run."
CANCELLED = "The user cancelled the turn. The command was not run."
DENIED_BY_SETTING = "Running bash commands is disabled by the user's settings. It was not run."
Ask = Callable[[ToolCallUpdate, list[PermissionOption]], Awaitable[RequestPermissionResponse]]


def rules_file(cwd: Path) -> Path:
    """``<data dir>/permissions/<workspace-key>.json`` (never inside the repository)."""
    return data_dir() / "permissions" / f"{workspace_key(cwd)}.json"


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


@dataclass(slots=True)
class PermissionBridge:
    """One per session."""

    ask: Ask
    rules: RuleStore
    cwd: Path
    mode: Callable[[], BashMode] = lambda: "ask"
    on_cancelled: Callable[[], None] = lambda: None
    """Called when the user answered ``cancelled``: the session aborts the run."""
    never: list[str] = field(default_factory=list)
    pending: dict[str, asyncio.Task[RequestPermissionResponse]] = field(default_factory=dict)

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        """The agent's hook (must not raise: a failure blocks the call)."""
        if ctx.tool_call.name != "bash":
            return None
        mode = self.mode()
        if mode == "allow":
            return None
        if mode == "deny":
            return BeforeToolCallResult(block=True, reason=DENIED_BY_SETTING)
        command = _command(ctx)
        if self.rules.allows("bash", command):
            return None
        if self.never and command_allowed(command, self.never):
            return BeforeToolCallResult(block=True, reason=DENIED)
        try:
            return await self._ask(ctx.tool_call.id, command, signal)
        except Exception:
            log.exception("permission question failed")
            return BeforeToolCallResult(block=True, reason=DENIED)

    async def _ask(
        self, call_id: str, command: str, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        shown = shown_command(command)
        patterns = None if shown.cut else suggest_patterns(command)
        args = {"command": command}
        tool_call = ToolCallUpdate(
            tool_call_id=call_id,
            title=view.title_of("bash", {"command": shown.text}),
            kind="execute",
            status="pending",
            raw_input=args,
        )
        answer = await self._wait(call_id, tool_call, options_for(patterns), signal)
        if answer is None:
            return BeforeToolCallResult(block=True, reason=CANCELLED)
        outcome = answer.outcome
        if not isinstance(outcome, AllowedOutcome):  # "cancelled": stop the turn
            self.on_cancelled()
            return BeforeToolCallResult(block=True, reason=CANCELLED)
        choice = outcome.option_id
        if choice == "allow_once":
            return None
        if choice == "allow_always" and patterns:
            try:
                await asyncio.to_thread(self.rules.add, "bash", patterns)
            except OSError as exc:
                log.error("could not save the permission rule: %s", exc)
            return None
        if choice == "reject_always" and patterns:
            self.never += [p for p in patterns if p not in self.never]
        return BeforeToolCallResult(block=True, reason=DENIED)

    async def _wait(
        self,
        call_id: str,
        tool_call: ToolCallUpdate,
        options: list[PermissionOption],
        signal: AbortSignal | None,
    ) -> RequestPermissionResponse | None:
        """The client's answer, or ``None`` when the run was aborted first or the client
        failed."""
        task = asyncio.ensure_future(self.ask(tool_call, options))
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


def _command(ctx: BeforeToolCallContext) -> str:
    command: Any = getattr(ctx.args, "command", None)
    if command is None:
        command = ctx.tool_call.arguments.get("command", "")
    return str(command)
