"""The editor's side of the permission questions (docs/protocol.md#5-permissions and
#8-permissions-that-stick): ``EditorAsk`` puts a question (``agent/asking.py``) to the user,
and ``bash_rules`` gives a session the one set of bash rules (``runtime/permissions.py``:
``permissions.bash`` = ``deny`` blocks, ``allow`` runs, ``sandbox`` runs inside bubblewrap when
the sandbox works and asks otherwise; then the workspace's "always" rules, this session's
rules, and only then a question).

Clients that declared ``clientCapabilities.requestPermission`` get ``pi/requestPermission``
(allow once / for this session / always in this workspace / deny with a reason the model
reads); the others get ``window/showMessageRequest`` (``bash``: ``Allow`` / ``Always allow`` =
every command of this session / ``Always allow "P" in this workspace`` / ``Deny``; an MCP
question: its options' labels). The command is shown with whitespace runs collapsed and,
when long, as head and tail around ``[N characters hidden]``; a command that was cut (or
cannot be split safely) is never offered an "always". Pending questions are listed for
``pi/state``; abort withdraws them (``$/cancelRequest``) and they count as denied.
Must not import sessions/ (except the data-directory helpers).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from dataclasses import dataclass

from lsprotocol import types
from pygls.exceptions import JsonRpcException

from ...ai.abort import AbortSignal
from ...runtime.permissions import Answer, BashRules, Question, quoted, rules_file
from ...security.rules import RuleStore
from ...security.sandbox import SANDBOX_NAME, Bubblewrap
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
DENIED_BY_SETTING = (
    'Running bash commands is disabled by the user\'s settings (pi.permissions.bash = "deny").'
    " It was not run."
)
__all__ = ["EditorAsk", "SecurityContext", "bash_rules", "rules_file"]


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


def bash_rules(
    ask: EditorAsk,
    settings: Callable[[], Settings],
    security: SecurityContext,
    bridge: ClientBridge,
) -> BashRules:
    """One session's bash rules, asking through ``ask``."""
    return BashRules(
        ask=ask,
        mode=lambda: security.effective_mode(settings().permissions.bash),
        rules=security.rules,
        notify=lambda text: bridge.show_message(types.MessageType.Error, text),
        denied_by_setting=DENIED_BY_SETTING,
    )


class EditorAsk:
    """The editor's ``Ask`` for one session: ``pi/requestPermission`` when the client
    declared it, else a message box."""

    def __init__(
        self,
        bridge: ClientBridge,
        features: Callable[[], ClientFeatures | None],
        session_id: str,
    ) -> None:
        self._bridge = bridge
        self._features = features
        self.session_id = session_id

    async def __call__(self, question: Question, signal: AbortSignal | None) -> Answer:
        features = self._features()
        if features is not None and features.request_permission:
            return await self._request(question, signal)
        if question.tool == "bash":
            return await self._bash_message_box(question, signal)
        return await self._message_box(question, signal)

    async def _request(self, question: Question, signal: AbortSignal | None) -> Answer:
        options = [
            PermissionOption(id=o.id, label=o.label, kind=o.kind)
            for o in question.options
            if o.kind != "denySession"  # the editor has no "never for this session"
        ]
        params = RequestPermissionParams(
            session_id=self.session_id,
            tool_call_id=question.call_id,
            tool=question.tool,
            title=question.title,
            detail=question.detail,
            options=options,
            child_session_id=question.child_session_id,
            agent_name=question.agent_name,
        )
        try:
            raw = await self._bridge.request(REQUEST_PERMISSION, params.to_wire(), signal)
            answer = RequestPermissionResult.model_validate(raw)
        except (JsonRpcException, RequestAborted, ValueError) as exc:
            log.info("permission not given: %s", exc or type(exc).__name__)
            return Answer("deny")
        kind = next((o.kind for o in options if o.id == answer.option_id), None)
        return Answer(kind or "deny", answer.reason)

    async def _bash_message_box(self, question: Question, signal: AbortSignal | None) -> Answer:
        patterns, cut = question.patterns, question.cut
        here = f"Always allow {quoted(patterns)} in this workspace" if patterns else None
        actions = [ALLOW] + ([] if cut else [ALWAYS_ALLOW]) + ([here] if here else []) + [DENY]
        who = f"pi ({question.agent_name} subagent)" if question.agent_name else "pi"
        answer = await self._bridge.ask(
            f"{who} wants to run a shell command:\n\n{question.shown}",
            actions,
            kind=types.MessageType.Warning,
            signal=signal,
        )
        if answer == ALLOW:
            return Answer("allowOnce")
        if answer == ALWAYS_ALLOW and not cut:
            return Answer("allowSession", every_call=True)
        if here is not None and answer == here:
            return Answer("allowAlways")
        return Answer("deny")

    async def _message_box(self, question: Question, signal: AbortSignal | None) -> Answer:
        labels = [o.label for o in question.options]
        choice = await self._bridge.ask(
            f"pi: {question.title}\n\n{question.detail}",
            labels,
            kind=types.MessageType.Warning,
            signal=signal,
        )
        kind = next((o.kind for o in question.options if o.label == choice), None)
        return Answer(kind or "deny")
