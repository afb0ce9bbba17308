"""``task`` children over ACP (docs/subagents.md#what-each-client-shows; the ACP RFD
"subagent sessions", a draft the SDK 0.12 has no types for — so it is kept behind the
client's capability, in this one module, as raw JSON).

- ``SubagentsCapability`` watches the raw ``initialize`` (the SDK's typed
  ``ClientCapabilities`` drops the unknown ``subagents`` key) and then stops watching.
- ``ChildStream`` (one per session, only when the client declared ``subagents: {}``):
  announces each child with a ``subagent_update`` on the parent before any of its updates,
  sends the child's updates under the child's id (the same mapping as the parent's), and one
  terminal ``subagent_update`` after its last update — all before the ``task`` call ends
  and so before ``session/prompt`` returns.
Without the capability nothing of this is sent: the client sees the ``task`` tool call and
its progress text, and a child's permission question titled ``[agent] …`` on the parent.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from ..runtime import ChildEvent
from ..sessions.events import SubagentUpdateEvent
from .updates import LiveUpdates

log = logging.getLogger(__name__)
TERMINAL = ("completed", "failed", "cancelled")


class SubagentsCapability:
    """Whether the client declared ``clientCapabilities.subagents`` (an object)."""

    def __init__(self) -> None:
        self.enabled = False
        self._conn: Any = None

    def watch(self, connection: Any) -> None:
        """Observe ``connection``'s incoming messages until ``initialize`` went by (the
        SDK's ``Connection``, the private ``AgentSideConnection._conn``)."""
        inner = getattr(connection, "_conn", None)
        if inner is None or not hasattr(inner, "add_observer"):
            return
        self._conn = inner
        inner.add_observer(self._observe)

    def _observe(self, event: Any) -> None:
        message = getattr(event, "message", {})
        if getattr(getattr(event, "direction", None), "value", "") != "incoming":
            return
        if message.get("method") != "initialize":
            return
        self.enabled = self.declared(message.get("params"))
        observers = getattr(self._conn, "_observers", None)
        if isinstance(observers, list) and self._observe in observers:
            observers.remove(self._observe)  # the rest of the stream is not copied for us

    @staticmethod
    def declared(params: Any) -> bool:
        caps = params.get("clientCapabilities") if isinstance(params, dict) else None
        return isinstance(caps, dict) and isinstance(caps.get("subagents"), dict)


class ChildStream:
    """One session's children for a client with the capability."""

    def __init__(self, session_id: str, cwd: Path, connection: Any) -> None:
        self.session_id = session_id
        self.cwd = cwd
        self.connection = connection
        self.children: dict[str, LiveUpdates] = {}
        self.closed = False

    async def _notify(self, session_id: str, update: dict[str, Any]) -> None:
        inner = getattr(self.connection, "_conn", None)
        if inner is None or self.closed:
            return
        try:
            await inner.send_notification(
                "session/update", {"sessionId": session_id, "update": update}
            )
        except (ConnectionError, OSError) as exc:
            log.info("subagent update not sent (%s)", exc)
            self.closed = True

    async def on_update(self, event: SubagentUpdateEvent) -> None:
        """The parent's ``subagent_update``: the announce, or the terminal state."""
        update: dict[str, Any] = {
            "sessionUpdate": "subagent_update",
            "subagentSessionId": event.child_session_id,
            "name": event.agent_name,
            "task": event.description,
            "capabilities": {"cancel": True},
        }
        if event.state in TERMINAL:
            update["state"] = event.state
            self.children.pop(event.child_session_id, None)
        elif event.state == "running":
            update["state"] = "running"
        else:  # queued: announced, running implied; nothing to revise yet
            pass
        if event.usage:
            update["_meta"] = {"piLsp": {"usage": event.usage}}
        await self._notify(self.session_id, update)

    async def replay_child(self, record: dict[str, Any], store: Any) -> None:
        """``session/load``: a recorded child — announced, its history under its id, then
        its terminal state (``disconnected`` when it never ended: the process stopped)."""
        from .replay import replay

        child = str(record.get("childSessionId"))
        announce = {
            "sessionUpdate": "subagent_update",
            "subagentSessionId": child,
            "name": record.get("agent"),
            "task": record.get("description"),
        }
        await self._notify(self.session_id, announce)
        try:
            file = store.open(child)
        except LookupError:
            file = None
        if file is not None:
            for update in replay(child, self.cwd, file.get_branch()):
                data = update.model_dump(by_alias=True, exclude_none=True, mode="json")
                await self._notify(child, data)
        state = record.get("state")
        terminal = state if state in TERMINAL else "disconnected"
        await self._notify(
            self.session_id,
            {"sessionUpdate": "subagent_update", "subagentSessionId": child, "state": terminal},
        )

    async def on_child(self, wrapped: ChildEvent) -> None:
        """One event of a child: its updates under its own id."""
        live = self.children.get(wrapped.child_id)
        if live is None:
            live = self.children[wrapped.child_id] = LiveUpdates(wrapped.child_id, self.cwd)
        for update in live.map(wrapped.event):
            data = update.model_dump(by_alias=True, exclude_none=True, mode="json")
            await self._notify(wrapped.child_id, data)
