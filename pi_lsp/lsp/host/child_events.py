"""A session's ``task`` children → the editor (docs/protocol.md#subagents).

For a client that declared ``clientCapabilities.subagents``, every event of a child goes out
as ``pi/event {sessionId: <child>, parentSessionId, seq, event}`` — its own ``seq`` from 1 and
its own delta coalescing, on a channel of its own — between the parent's ``subagent_update``
announce and its terminal state. A client without the capability sees only the parent's
``task`` tool call (its progress text) and the ``subagent_update``s.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ...runtime import ChildEvent
from ...wire import event_wire
from ..bridge import ClientBridge
from ..protocol.methods import EVENT
from .channel import EventChannel


class ChildRelay:
    """The child channels of one hosted session."""

    def __init__(
        self, bridge: ClientBridge, *, interval: float, adaptive: bool, enabled: bool
    ) -> None:
        self.bridge = bridge
        self.interval = interval
        self.adaptive = adaptive
        self.enabled = enabled
        self.channels: dict[str, EventChannel] = {}

    def channel(self, child_id: str, parent_id: str) -> EventChannel:
        found = self.channels.get(child_id)
        if found is None:
            send = self._sender(parent_id)
            found = EventChannel(child_id, send, interval=self.interval, adaptive=self.adaptive)
            self.channels[child_id] = found
        return found

    def _sender(self, parent_id: str) -> Callable[[dict[str, Any]], None]:
        def send(params: dict[str, Any]) -> None:
            self.bridge.notify_raw(EVENT, {**params, "parentSessionId": parent_id})

        return send

    def __call__(self, wrapped: ChildEvent) -> None:
        if not self.enabled:
            return
        wire = event_wire(wrapped.event)
        if wire is None:
            return
        channel = self.channel(wrapped.child_id, wrapped.parent_id)
        channel.publish(wire)
        if wrapped.event.type == "agent_end":
            channel.flush()  # all of it before the parent's terminal subagent_update

    def flush(self) -> None:
        for channel in self.channels.values():
            channel.flush()
