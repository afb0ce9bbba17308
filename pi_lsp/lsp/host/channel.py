"""One session's ``pi/event`` stream: sequence numbers, delta coalescing, the replay buffer.

``publish`` takes wire events (``events.event_wire``). Consecutive ``*_delta`` updates of one
content block are merged so at most ``1/interval`` delta notifications go out per second; the
first delta after a quiet period goes out at once. A client that declared its budget
(``maxUpdatesPerSecond``) gets merges of exactly ``interval``: the window follows the budget.
Without a declared budget the channel is ``adaptive``: while a fast model keeps the window
full, the window doubles up to ``MAX_WINDOW`` (100 ms): fewer, larger notifications (each costs
~230 bytes of envelope) with the answer still visibly growing; a pause resets it. Any other
event first flushes the merged delta, so order is kept.
Every sent notification gets the next ``seq`` (from 1) and is kept in a bounded buffer for
``pi/replay``. Clock and timer are injectable; no pygls here.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Callable
from typing import Any, Protocol

from ...wire import DELTA_TYPES

DEFAULT_BUFFER = 2048
MAX_WINDOW = 0.1
"""No merge ever spans more than this (docs/protocol.md#3-server--client-notification-pievent: ~100
ms)."""


class TimerHandle(Protocol):
    def cancel(self) -> None: ...


Scheduler = Callable[[float, Callable[[], None]], TimerHandle]


class EventChannel:
    def __init__(
        self,
        session_id: str,
        send: Callable[[dict[str, Any]], None],
        *,
        interval: float = 1 / 60,
        adaptive: bool = True,
        buffer_size: int = DEFAULT_BUFFER,
        clock: Callable[[], float] | None = None,
        call_at: Scheduler | None = None,
    ) -> None:
        self.session_id = session_id
        self._send = send
        self.interval = min(interval, MAX_WINDOW)
        self.adaptive = adaptive
        """Widen the window under a fast model (no budget declared by the client)."""
        self.window = self.interval
        """The current merge window: ``interval``; when ``adaptive``, up to ``MAX_WINDOW``."""
        self._buffer: deque[dict[str, Any]] = deque(maxlen=max(1, buffer_size))
        self._clock = clock
        self._call_at = call_at
        self.seq = 0
        self.update_count = 0
        """``message_update`` notifications sent (all kinds)."""
        self.delta_count = 0
        """Delta notifications sent (after merging)."""
        self._last_delta = float("-inf")
        self._pending: dict[str, Any] | None = None
        self._pending_parts: list[str] = []
        self._timer: TimerHandle | None = None

    # -------------------------------------------------------------------- time seams

    def _now(self) -> float:
        if self._clock is not None:
            return self._clock()
        return asyncio.get_running_loop().time()

    def _schedule(self, when: float) -> TimerHandle:
        if self._call_at is not None:
            return self._call_at(when, self._on_timer)
        return asyncio.get_running_loop().call_at(when, self._on_timer)

    # ----------------------------------------------------------------------- publish

    def publish(self, event: dict[str, Any]) -> None:
        if event.get("type") == "message_update":
            inner = event["assistantMessageEvent"]
            if inner.get("type") in DELTA_TYPES:
                self._delta(inner)
                return
        self.flush()
        self._emit(event)

    def _delta(self, inner: dict[str, Any]) -> None:
        pending = self._pending
        if pending is not None:
            if (
                pending["type"] == inner["type"]
                and pending["contentIndex"] == inner["contentIndex"]
            ):
                self._pending_parts.append(inner["delta"])
                return
            self.flush()
        now = self._now()
        gap = now - self._last_delta
        if gap >= self.window:
            if gap >= 2 * self.window:
                self.window = self.interval  # the stream paused: back to the quick window
            self._last_delta = now
            self._emit_delta(inner)
            return
        self._pending = {"type": inner["type"], "contentIndex": inner["contentIndex"]}
        self._pending_parts = [inner["delta"]]
        self._timer = self._schedule(self._last_delta + self.window)

    def _on_timer(self) -> None:
        """A window closed with merged deltas: the model is fast, widen the window."""
        self._timer = None
        if self._pending is not None and self.adaptive:
            self.window = min(self.window * 2, MAX_WINDOW)
        self.flush()

    def flush(self) -> None:
        """Send the merged delta now (called by the timer and before any other event)."""
        pending = self._pending
        if pending is None:
            return
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        self._pending = None
        pending["delta"] = "".join(self._pending_parts)
        self._pending_parts = []
        self._last_delta = self._now()
        self._emit_delta(pending)

    def _emit_delta(self, inner: dict[str, Any]) -> None:
        self.delta_count += 1
        self._emit({"type": "message_update", "assistantMessageEvent": inner})

    def _emit(self, event: dict[str, Any]) -> None:
        self.seq += 1
        if event["type"] == "message_update":
            self.update_count += 1
        params = {"sessionId": self.session_id, "seq": self.seq, "event": event}
        self._buffer.append(params)
        self._send(params)

    # ------------------------------------------------------------------------ replay

    def replay(self, after_seq: int) -> tuple[list[dict[str, Any]], bool]:
        """Notifications with ``seq > after_seq`` still held; ``complete`` is False when
        some of them were already dropped from the bounded buffer."""
        self.flush()
        oldest = self._buffer[0]["seq"] if self._buffer else self.seq + 1
        events = [p for p in self._buffer if p["seq"] > after_seq]
        return events, after_seq >= oldest - 1

    def close(self) -> None:
        self.flush()
