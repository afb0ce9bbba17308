"""Asking the user before ``bash`` runs (docs/protocol.md#5-permissions and
#8-permissions-that-stick), as a ``before_tool_call`` hook.

Decision order for one command: ``permissions.bash`` = ``deny`` blocks, ``allow`` runs,
``sandbox`` runs (inside bubblewrap, see ``agent_setup``) when the sandbox works and asks
otherwise; then the workspace's "always" rules (``security.rules``, kept in the user's data
directory), this session's rules, and only then a question. Clients that declared
``clientCapabilities.requestPermission`` get ``pi/requestPermission`` (allow once / for this
session / always in this workspace / deny with a reason the model reads); the others get
``window/showMessageRequest`` (``Allow`` / ``Always allow`` = every command of this session /
``Always allow "P" in this workspace`` / ``Deny``). The command is shown with whitespace runs
collapsed and, when long, as head and tail around ``[N characters hidden]``; a command that
was cut (or cannot be split safely) is never offered an "always". Pending questions are
listed for ``pi/state``; abort withdraws them (``$/cancelRequest``) and they count as denied.
Must not import sessions/ (except the data-directory helpers).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from ...agent.types import BeforeToolCallContext, BeforeToolCallResult
from ...ai.abort import AbortSignal
from ...runtime.sandboxing import runs_sandboxed
from ...security.prompt_text import shown_command
from ...security.rules import RuleStore, command_allowed, suggest_patterns
from ...security.sandbox import SANDBOX_NAME, Bubblewrap
from ...sessions.paths import data_dir, workspace_key
from ..bridge import ClientBridge, RequestAborted
from ..protocol.models import (
    REQUEST_PERMISSION,
    PermissionOption,
    RequestPermissionParams,
    RequestPermissionResult,
)
from ..settings import BashPermission, ClientFeatures, Settings

log = logging.getLogger(__name__)

ALLOW = "Allow"
ALWAYS_ALLOW = "Always allow"
DENY = "Deny"
DENIED = "The user denied permission to run this command. It was not run."
DENIED_BY_SETTING = (
    'Running bash commands is disabled by the user\'s settings (pi.permissions.bash = "deny").'
    " It was not run."
)
Kind = Literal["allowOnce", "allowSession", "allowAlways", "deny"]


def command_of(ctx: BeforeToolCallContext) -> str:
    command: Any = getattr(ctx.args, "command", None)
    if command is None:
        command = ctx.tool_call.arguments.get("command", "")
    return str(command)


def _sandboxed(ctx: BeforeToolCallContext) -> bool:
    """The run's ``bash`` tool really runs commands in the sandbox."""
    return runs_sandboxed(ctx.context.tools)


def rules_file(cwd: Path) -> Path:
    """``<data dir>/permissions/<workspace-key>.json``: never inside the repository."""
    return data_dir() / "permissions" / f"{workspace_key(cwd)}.json"


def _quoted(patterns: list[str]) -> str:
    return ", ".join(f'"{p}"' for p in patterns)


@dataclass(slots=True)
class SecurityContext:
    """Server-wide: the workspace's rule store and the sandbox (probed at start-up)."""

    rules: RuleStore
    sandbox: Bubblewrap
    _warned: bool = False

    def effective_mode(self, mode: BashPermission) -> BashPermission:
        """``sandbox`` falls back to ``ask`` when the sandbox does not work here."""
        if mode == "sandbox" and self.sandbox.problem() is not None:
            return "ask"
        return mode

    async def unavailable_notice(self, settings: Settings) -> str | None:
        """The one-time message for a configured sandbox that does not work (else None)."""
        if self._warned or settings.permissions.bash != "sandbox":
            return None
        problem = await asyncio.to_thread(self.sandbox.problem)
        if problem is None:
            return None
        self._warned = True
        return (
            f"pi: the bash sandbox is unavailable: {problem}. Install {SANDBOX_NAME} "
            "(Debian/Ubuntu: apt install bubblewrap). Until then pi asks before each command."
        )


@dataclass(slots=True)
class Choice:
    kind: Kind
    reason: str | None = None
    patterns: list[str] = field(default_factory=list)
    every_command: bool = False
    """The ``Always allow`` of docs/protocol.md#5-permissions: every later command of this
    session."""


class BashPermissions:
    """One per session: that session's answers, rules and pending questions."""

    def __init__(
        self,
        bridge: ClientBridge,
        settings: Callable[[], Settings],
        features: ClientFeatures,
        security: SecurityContext,
    ) -> None:
        self._bridge = bridge
        self._settings = settings
        self._features = features
        self._security = security
        self.session_id = ""
        self.always_allow = False
        self.session_patterns: list[str] = []
        self.session_exact: set[str] = set()
        self.pending: dict[str, dict[str, str]] = {}

    def pending_list(self) -> list[dict[str, str]]:
        return list(self.pending.values())

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        if ctx.tool_call.name != "bash":
            return None
        mode = self._security.effective_mode(self._settings().permissions.bash)
        if mode == "sandbox" and not _sandboxed(ctx):
            mode = "ask"  # switched to sandbox during this run: its bash is not sandboxed yet
        if mode in ("allow", "sandbox"):
            return None
        if mode == "deny":
            return BeforeToolCallResult(block=True, reason=DENIED_BY_SETTING)
        command = command_of(ctx)
        if self._allowed_already(command):
            return None
        choice = await self._ask(ctx.tool_call.id, command, signal)
        if choice.kind == "deny":
            reason = DENIED if not choice.reason else f"{DENIED} The user said: {choice.reason}"
            return BeforeToolCallResult(block=True, reason=reason)
        if choice.every_command:
            self.always_allow = True
        elif choice.kind == "allowAlways" and choice.patterns:
            # the rule file is the truth for "always": revoking the rule (pi/permissions)
            # makes the next such command ask again, in this session too
            try:
                await asyncio.to_thread(self._security.rules.add, "bash", choice.patterns)
            except OSError as exc:
                log.error("could not save the permission rule: %s", exc)
                self._bridge.show_message(
                    types.MessageType.Error, f"pi: could not save the permission: {exc}"
                )
                self._allow_for_session(command, choice.patterns)
        elif choice.kind in ("allowSession", "allowAlways"):
            self._allow_for_session(command, choice.patterns)
        return None

    def _allow_for_session(self, command: str, patterns: list[str]) -> None:
        if patterns:
            self.session_patterns += [p for p in patterns if p not in self.session_patterns]
        else:
            self.session_exact.add(command)

    def _allowed_already(self, command: str) -> bool:
        if self.always_allow or command in self.session_exact:
            return True
        if command_allowed(command, self.session_patterns):
            return True
        return self._security.rules.allows("bash", command)

    # ------------------------------------------------------------------- asking

    async def _ask(self, call_id: str, command: str, signal: AbortSignal | None) -> Choice:
        shown = shown_command(command)
        patterns = None if shown.cut else suggest_patterns(command)
        title = f"Run: {shown.text}"
        self.pending[call_id] = {"toolCallId": call_id, "tool": "bash", "title": title}
        try:
            if self._features.request_permission:
                return await self._request(call_id, command, title, shown.cut, patterns, signal)
            return await self._message_box(shown.text, shown.cut, patterns, signal)
        finally:
            self.pending.pop(call_id, None)

    async def _request(
        self,
        call_id: str,
        command: str,
        title: str,
        cut: bool,
        patterns: list[str] | None,
        signal: AbortSignal | None,
    ) -> Choice:
        options = [PermissionOption(id="allowOnce", label="Allow once", kind="allowOnce")]
        if not cut:
            what = f"Allow {_quoted(patterns)}" if patterns else "Allow this command"
            options.append(
                PermissionOption(
                    id="allowSession", label=f"{what} for this session", kind="allowSession"
                )
            )
        if patterns:
            options.append(
                PermissionOption(
                    id="allowAlways",
                    label=f"Always allow {_quoted(patterns)} in this workspace",
                    kind="allowAlways",
                )
            )
        options.append(PermissionOption(id="deny", label="Deny", kind="deny"))
        params = RequestPermissionParams(
            session_id=self.session_id,
            tool_call_id=call_id,
            tool="bash",
            title=title,
            detail=command,
            options=options,
        )
        try:
            raw = await self._bridge.request(REQUEST_PERMISSION, params.to_wire(), signal)
        except (JsonRpcException, RequestAborted) as exc:
            log.info("permission not given: %s", exc or type(exc).__name__)
            return Choice("deny")
        try:
            answer = RequestPermissionResult.model_validate(raw)
        except ValueError:
            log.info("unusable pi/requestPermission answer: %r", raw)
            return Choice("deny")
        kind: Kind = next((o.kind for o in options if o.id == answer.option_id), "deny")
        return Choice(kind, reason=answer.reason, patterns=patterns or [])

    async def _message_box(
        self, shown: str, cut: bool, patterns: list[str] | None, signal: AbortSignal | None
    ) -> Choice:
        here = f"Always allow {_quoted(patterns)} in this workspace" if patterns else None
        actions = [ALLOW] + ([] if cut else [ALWAYS_ALLOW]) + ([here] if here else []) + [DENY]
        answer = await self._bridge.ask(
            f"pi wants to run a shell command:\n\n{shown}",
            actions,
            kind=types.MessageType.Warning,
            signal=signal,
        )
        if answer == ALLOW:
            return Choice("allowOnce")
        if answer == ALWAYS_ALLOW and not cut:
            return Choice("allowSession", every_command=True)
        if here is not None and answer == here:
            return Choice("allowAlways", patterns=patterns or [])
        return Choice("deny")
