"""Standard work-done progress for a run (docs/protocol.md#6-standard-lsp-features): ``turn 2 · edit
src/app.py``.

Only when the client advertises ``window.workDoneProgress``. The token is created in the
background (the run never waits for the client); reports sent before the client answered are
folded into ``begin``. A client-side cancel of the progress aborts the run. Must not import
sessions/.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from typing import Any

from lsprotocol import types

from ...agent.types import ToolExecutionStartEvent, TurnStartEvent
from ..bridge import ClientBridge

log = logging.getLogger(__name__)

TITLE = "pi"
_DETAIL_KEYS = ("path", "command", "pattern")
_MAX_DETAIL = 60


def describe_tool(name: str, args: Any) -> str:
    detail = ""
    if isinstance(args, dict):
        for key in _DETAIL_KEYS:
            value = args.get(key)
            if isinstance(value, str) and value:
                detail = value.splitlines()[0] if value.strip() else value
                break
    if len(detail) > _MAX_DETAIL:
        detail = detail[: _MAX_DETAIL - 1] + "…"
    return f"{name} {detail}".strip()


class RunProgress:
    def __init__(self, bridge: ClientBridge, on_cancel: Callable[[], object]) -> None:
        self._bridge = bridge
        self._on_cancel = on_cancel
        self.token = f"pi-run-{uuid.uuid4().hex[:12]}"
        self.turn = 0
        self.message = "starting"
        self._created = False
        self._ended = False
        self._task: asyncio.Task[None] | None = None

    @property
    def enabled(self) -> bool:
        return self._bridge.work_done_progress

    def start(self) -> None:
        if self.enabled:
            self._task = asyncio.ensure_future(self._create())

    async def _create(self) -> None:
        progress = self._bridge.server.work_done_progress
        try:
            await progress.create_async(self.token)
        except Exception as exc:  # the client refused or failed: no progress
            log.info("work done progress not created: %s", exc)
            return
        self._created = True
        progress.begin(
            self.token,
            types.WorkDoneProgressBegin(title=TITLE, message=self.message, cancellable=True),
        )
        cancel = progress.tokens.get(self.token)
        if cancel is not None:
            cancel.add_done_callback(lambda fut: self._cancelled() if fut.cancelled() else None)
        if self._ended:
            self._send_end()

    def _cancelled(self) -> None:
        if not self._ended:
            self._on_cancel()

    def on_event(self, event: object) -> None:
        """A session event (typed): turns, tool calls and compactions are reported."""
        if isinstance(event, TurnStartEvent):
            self.turn += 1
            self._report(f"turn {self.turn}")
        elif isinstance(event, ToolExecutionStartEvent):
            tool = describe_tool(event.tool_name, event.args)
            self._report(f"turn {max(self.turn, 1)} · {tool}")
        elif getattr(event, "type", None) == "compaction_start":  # sessions' event type
            self._report("compacting the session")

    def _report(self, message: str) -> None:
        self.message = message
        if self._created and not self._ended:
            self._bridge.server.work_done_progress.report(
                self.token, types.WorkDoneProgressReport(message=message)
            )

    def end(self, message: str = "done") -> None:
        if self._ended:
            return
        self._ended = True
        self.message = message
        if self._created:
            self._send_end()

    def _send_end(self) -> None:
        progress = self._bridge.server.work_done_progress
        progress.end(self.token, types.WorkDoneProgressEnd(message=self.message))
        progress.tokens.pop(self.token, None)

    async def wait(self) -> None:
        if self._task is not None:
            await asyncio.wait({self._task})
