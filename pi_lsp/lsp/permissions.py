"""Asking the user before ``bash`` runs (PROTOCOL §5), as a ``before_tool_call`` hook.

``window/showMessageRequest`` (Warning, the command in the message, actions ``Allow`` /
``Always allow`` / ``Deny``). ``Deny``, a dismissed prompt, a client error and an abort all
block the call with an error result the model reads. ``Always allow`` holds for the session;
``permissions.bash`` = ``allow`` / ``deny`` skip the prompt. Must not import sessions/.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from lsprotocol import types

from ..agent.types import BeforeToolCallContext, BeforeToolCallResult
from ..ai.abort import AbortSignal
from .client import ClientBridge
from .settings import BashPermission

ALLOW = "Allow"
ALWAYS_ALLOW = "Always allow"
DENY = "Deny"
DENIED = "The user denied permission to run this command. It was not run."
DENIED_BY_SETTING = (
    'Running bash commands is disabled by the user\'s settings (pi.permissions.bash = "deny").'
    " It was not run."
)
_MAX_SHOWN = 2000


def command_of(ctx: BeforeToolCallContext) -> str:
    command: Any = getattr(ctx.args, "command", None)
    if command is None:
        command = ctx.tool_call.arguments.get("command", "")
    return str(command)


class BashPermissions:
    """One per session (``Always allow`` is remembered for that session only)."""

    def __init__(self, bridge: ClientBridge, mode: Callable[[], BashPermission]) -> None:
        self._bridge = bridge
        self._mode = mode
        self.always_allow = False

    async def before_tool_call(
        self, ctx: BeforeToolCallContext, signal: AbortSignal | None
    ) -> BeforeToolCallResult | None:
        if ctx.tool_call.name != "bash":
            return None
        mode = self._mode()
        if mode == "allow" or (mode == "ask" and self.always_allow):
            return None
        if mode == "deny":
            return BeforeToolCallResult(block=True, reason=DENIED_BY_SETTING)
        command = command_of(ctx)
        shown = command if len(command) <= _MAX_SHOWN else command[:_MAX_SHOWN] + "…"
        answer = await self._bridge.ask(
            f"pi wants to run a shell command:\n\n{shown}",
            [ALLOW, ALWAYS_ALLOW, DENY],
            kind=types.MessageType.Warning,
            signal=signal,
        )
        if answer == ALWAYS_ALLOW:
            self.always_allow = True
            return None
        if answer == ALLOW:
            return None
        return BeforeToolCallResult(block=True, reason=DENIED)
