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
- ``session/load`` (``ChildStream.replay_tree``): the parent's history and its children's
  in the order their entries were written (each entry's timestamp), so parallel children
  interleave as they did live; a child is announced after its ``task`` call and ended before
  that call's result, whatever the clock says.
Without the capability nothing of this is sent: the client sees the ``task`` tool call and
its progress text, and a child's permission question titled ``[agent] …`` on the parent.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from acp.schema import ToolCallProgress, ToolCallStart

from ..runtime import ChildEvent
from ..sessions.entries import CustomEntry
from ..sessions.events import SubagentUpdateEvent
from ..sessions.usage import SUBAGENT_ENTRY_TYPE, subagent_records
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

    async def replay_tree(
        self,
        parent: Sequence[tuple[str, Any]],
        entries: Sequence[Any],
        store: Any,
        send_parent: Callable[[Any], Awaitable[None]],
    ) -> None:
        """``session/load``: the parent's timed updates (``replay.replay_timed``) merged with
        its recorded children's (announce, history, terminal), in the order they happened.
        Children whose ``task`` call is not on this branch come at the end."""
        starts = {
            u.tool_call_id for _, u in parent if isinstance(u, ToolCallStart) and u.tool_call_id
        }
        times = _record_times(entries)
        streams: dict[str, list[Timed]] = {}
        rest: list[list[Timed]] = []
        for record in subagent_records(entries):
            items = self._child_items(record, times, store)
            call = record.get("toolCallId")
            if isinstance(call, str) and call in starts and call not in streams:
                streams[call] = items
            else:
                rest.append(items)
        for _, session_id, update in merge_timelines(parent, streams):
            if session_id is None:
                await send_parent(update)
            else:
                await self._notify(session_id, update)
        for items in rest:
            for _, session_id, update in items:
                await self._notify(session_id or self.session_id, update)

    def _child_items(
        self, record: dict[str, Any], times: dict[str, tuple[str, str | None]], store: Any
    ) -> list[Timed]:
        """One recorded child as timed raw updates: announce, history, terminal."""
        from .replay import replay_timed

        child = str(record.get("childSessionId"))
        start, end = times.get(child, ("", None))
        announce = {
            "sessionUpdate": "subagent_update",
            "subagentSessionId": child,
            "name": record.get("agent"),
            "task": record.get("description"),
        }
        items: list[Timed] = [(start, self.session_id, announce)]
        try:
            file = store.open(child)
        except LookupError:
            file = None
        if file is not None:
            for at, update in replay_timed(child, self.cwd, file.get_branch()):
                data = update.model_dump(by_alias=True, exclude_none=True, mode="json")
                items.append((max(at, items[-1][0]), child, data))
        state = record.get("state")
        terminal = state if state in TERMINAL else "disconnected"
        last = items[-1][0]
        at = max(end, last) if end is not None and state in TERMINAL else last
        items.append(
            (
                at,
                self.session_id,
                {"sessionUpdate": "subagent_update", "subagentSessionId": child, "state": terminal},
            )
        )
        return items

    async def on_child(self, wrapped: ChildEvent) -> None:
        """One event of a child: its updates under its own id."""
        live = self.children.get(wrapped.child_id)
        if live is None:
            live = self.children[wrapped.child_id] = LiveUpdates(wrapped.child_id, self.cwd)
        for update in live.map(wrapped.event):
            data = update.model_dump(by_alias=True, exclude_none=True, mode="json")
            await self._notify(wrapped.child_id, data)


Timed = tuple[str, "str | None", Any]
"""``(ISO time, session id to send under, update)``; ``None``: a parent update (typed, sent
through the session)."""


def _record_times(entries: Sequence[Any]) -> dict[str, tuple[str, str | None]]:
    """Each child's first ``subagent`` record's time and its terminal record's, if any."""
    out: dict[str, tuple[str, str | None]] = {}
    for entry in entries:
        if not isinstance(entry, CustomEntry) or entry.custom_type != SUBAGENT_ENTRY_TYPE:
            continue
        data = entry.data if isinstance(entry.data, dict) else {}
        child = data.get("childSessionId")
        if not isinstance(child, str):
            continue
        start, end = out.get(child, (entry.timestamp, None))
        if data.get("state") in TERMINAL:
            end = entry.timestamp
        out[child] = (start, end)
    return out


def merge_timelines(
    parent: Sequence[tuple[str, Any]], children: dict[str, list[Timed]]
) -> Iterator[Timed]:
    """The parent's updates and each ``task`` call's child stream, earliest first (the parent
    first on a tie). A child's stream waits for its call's ``tool_call``; the call's result
    waits for the child's stream to end. Each stream keeps its own order."""
    p = 0
    heads = dict.fromkeys(children, 0)
    started: set[str] = set()
    while True:
        candidates: list[tuple[str, int, str | None]] = []
        if p < len(parent):
            update = parent[p][1]
            call = getattr(update, "tool_call_id", None)
            waiting = (
                isinstance(update, ToolCallProgress)
                and call in children
                and heads[call] < len(children[call])
            )
            if not waiting:
                candidates.append((parent[p][0], 0, None))
        for rank, (call, items) in enumerate(children.items(), start=1):
            if call in started and heads[call] < len(items):
                candidates.append((items[heads[call]][0], rank, call))
        if not candidates:
            if p >= len(parent):
                return
            candidates.append((parent[p][0], 0, None))  # never stuck: the parent goes on
        _, _, pick = min(candidates)
        if pick is None:
            at, update = parent[p]
            p += 1
            call = getattr(update, "tool_call_id", None)
            if isinstance(update, ToolCallStart) and call in children:
                started.add(call)
            yield at, None, update
        else:
            yield children[pick][heads[pick]]
            heads[pick] += 1
