"""Background processes in an ACP client (docs/acp.md#background-processes).

A ``bash`` call that started a background process (``background: true``, or a foreground
command moved there after the long threshold) ends its tool call ``in_progress``
(``updates.LiveUpdates``); ``BackgroundRelay`` then keeps that tool call alive: the
process's output as ``tool_call_update`` content (or terminal output deltas for a client
with Zed's terminal extension), at most one update per ``INTERVAL`` seconds, and
``completed`` / ``failed`` once the model has seen the process end: it read the exit
(``bash_output`` after it, ``BackgroundProcess.report_end``) or killed it (``bash_kill``), or
the process was killed otherwise (the end of the session, a ``session/cancel`` of the prompt
that started it). A process that exits by itself meanwhile gets a last ``in_progress``
update with its exit status. Imports the SDK's schema, ``tools.background`` and
``tool_view`` only.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from acp.schema import ToolCallProgress

from ..tools.background import BackgroundJobs, BackgroundProcess
from . import tool_view as view

INTERVAL = 0.5
TAIL_BYTES = 8192
TAIL_LINES = 40


@dataclass(slots=True)
class _Tracked:
    call_id: str
    ended: bool = False
    """The tool call's own result was sent (``tool_ended``)."""
    sent: str = ""
    dirty: bool = False
    done: bool = False
    exit_sent: bool = False
    """A terminal client was told the process exited (the call may still be in progress)."""


def _failed(job: BackgroundProcess) -> bool:
    return not job.killed and (job.exit_code or 0) != 0


def tail_text(job: BackgroundProcess) -> str:
    text = job.ring.tail(TAIL_BYTES).decode("utf-8", "replace")
    lines = text.split("\n")
    if len(lines) > TAIL_LINES:
        text = "\n".join(lines[-TAIL_LINES:])
    return text


class BackgroundRelay:
    def __init__(
        self,
        jobs: BackgroundJobs,
        send: Callable[[Any], Awaitable[None]],
        *,
        terminal: Callable[[], bool] = lambda: False,
        interval: float = INTERVAL,
    ) -> None:
        self.jobs = jobs
        self._send = send
        self._terminal = terminal
        self.interval = interval
        self._tracked: dict[str, _Tracked] = {}
        self._lock = asyncio.Lock()
        self._timer: asyncio.TimerHandle | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        self._unsubscribe = jobs.subscribe(self._on_job)

    def close(self) -> None:
        self._unsubscribe()
        if self._timer is not None:
            self._timer.cancel()

    # ------------------------------------------------------------------ from the jobs

    def _on_job(self, job: BackgroundProcess, what: str) -> None:
        if job.tool_call_id is None:
            return
        tracked = self._tracked.get(job.id)
        if tracked is None:
            tracked = self._tracked[job.id] = _Tracked(job.tool_call_id)
        if what == "output":
            tracked.dirty = True
            self._schedule()
        elif what == "exited":
            if job.killed:
                self._finish_if_ended(job, tracked)
            else:  # the exit status shows; the call ends when the model reads it
                tracked.dirty = True
                self._schedule()
        elif what == "reported":
            self._finish_if_ended(job, tracked)

    def _finish_if_ended(self, job: BackgroundProcess, tracked: _Tracked) -> None:
        if tracked.ended:
            self._spawn(self._finish(job, tracked))

    def tool_ended(self, call_id: str, in_progress: bool = True) -> None:
        """The tool call ``call_id`` sent its result; ``in_progress``: that result said the
        process still runs, so from now on the relay owns the call (else the call ended)."""
        for job in self.jobs.all():
            tracked = self._tracked.get(job.id)
            if tracked is None or tracked.call_id != call_id or tracked.ended:
                continue
            tracked.ended = True
            if not in_progress:
                tracked.done = True
            elif not job.running and (job.killed or job.end_reported):
                self._spawn(self._finish(job, tracked))
            elif tracked.dirty or not job.running:
                tracked.dirty = True
                self._schedule()

    async def finish_all(self) -> None:
        """The session closes: every tool call still in progress gets its end."""
        for job in self.jobs.all():
            tracked = self._tracked.get(job.id)
            if tracked is not None and tracked.ended and not job.running:
                await self._finish(job, tracked)

    # ------------------------------------------------------------------ sending

    def _schedule(self) -> None:
        if self._timer is None:
            loop = asyncio.get_running_loop()
            self._timer = loop.call_later(self.interval, self._flush)

    def _flush(self) -> None:
        self._timer = None
        self._spawn(self._send_output())

    def _spawn(self, coro: Awaitable[None]) -> None:
        task = asyncio.ensure_future(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _send_output(self) -> None:
        async with self._lock:
            for job in self.jobs.all():
                tracked = self._tracked.get(job.id)
                if tracked is None or not tracked.ended or tracked.done or not tracked.dirty:
                    continue
                tracked.dirty = False
                update = self._output_update(job, tracked)
                if update is not None:
                    await self._send(update)

    def _output_update(self, job: BackgroundProcess, tracked: _Tracked) -> Any:
        now = tail_text(job)
        if self._terminal():
            delta = view.output_delta(tracked.sent, now)
            tracked.sent = now
            meta = view.output_meta(tracked.call_id, delta) if delta else {}
            if not job.running and not tracked.exit_sent:  # the terminal ended; the call not
                tracked.exit_sent = True
                meta = {**meta, **view.exit_meta(tracked.call_id, _failed(job))}
            if not meta:
                return None
            return ToolCallProgress(
                session_update="tool_call_update",
                tool_call_id=tracked.call_id,
                field_meta=meta,
            )
        shown = f"[{job.id}: {job.status_text()}]\n{now}"
        if shown == tracked.sent:
            return None
        tracked.sent = shown
        return ToolCallProgress(
            session_update="tool_call_update",
            tool_call_id=tracked.call_id,
            status="in_progress",
            content=[view.output_text(shown)],
        )

    async def _finish(self, job: BackgroundProcess, tracked: _Tracked) -> None:
        async with self._lock:
            if tracked.done:
                return
            tracked.done = True
            failed = _failed(job)
            now = tail_text(job)
            status_line = f"[{job.id}: {job.status_text()}]"
            meta: dict[str, Any] | None = None
            content = None
            if self._terminal():
                delta = view.output_delta(tracked.sent, now)
                meta = {
                    **(view.output_meta(tracked.call_id, delta) if delta else {}),
                    **({} if tracked.exit_sent else view.exit_meta(tracked.call_id, failed)),
                }
            else:
                content = [view.output_text(f"{status_line}\n{now}")]
            with contextlib.suppress(Exception):  # the client went away: nothing to tell
                await self._send(
                    ToolCallProgress(
                        session_update="tool_call_update",
                        tool_call_id=tracked.call_id,
                        status="failed" if failed else "completed",
                        content=content,
                        raw_output={"content": now, "exitCode": job.exit_code, "id": job.id},
                        field_meta=meta,
                    )
                )
