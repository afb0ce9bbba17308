"""The pending review hunks of the agent's edits on the wire
(docs/protocol.md#review-hunks-keep-or-undo-each-change-91).

Wraps the pure ``HunkTracker`` (``pi_lsp/review``): the agent's applied edits come in from
``EditorWorkspace`` (with the tool call and session that made them: the ``ToolCallContext``
the ``edit`` / ``write`` tool passed), every other change to a buffer with hunks comes in from
``didChange`` (the difference between the last text seen and the new one). Whenever a
session's set of pending hunks changes, its ``review_update`` event is published. Undo goes
back through ``EditorWorkspace.apply_edits`` (versioned, rebased, disk kept in line); a hunk
whose text the user changed since is a conflict and is left alone. A user's change that puts a
hunk's old text back (the editor's own undo) undoes it too.

What the user undid waits here, per session, for the session's next model call
(``take_notes``, polled by the agent loop right before each call); a call made while a
decision is still being applied waits for it (``deciding`` / ``settled``), at most
``SETTLE_TIMEOUT``: then the call goes without that note (it comes with the call after) and
``warn`` says so. Every change to a session's waiting notes goes to ``on_notes`` (the server
writes it to the session file), and ``restore_notes`` puts them back after a restart.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

from ...agent.messages import CustomMessage
from ...review import Hunk, HunkTracker, UndoConflict, split_hunks
from ...tools.workspace import ToolCallContext
from ..protocol.positions import Encoding, TextIndex
from .review_notes import Undone, review_note

log = logging.getLogger(__name__)


SETTLE_TIMEOUT = 10.0
"""How long a model call waits for review decisions the editor is still applying."""


@dataclass(slots=True)
class ReviewBook:
    publish: Callable[[str, dict[str, Any]], None]
    """``(session_id, event)``: send a ``pi/event`` on that session's channel."""
    encoding: Callable[[], Encoding] = lambda: "utf-16"
    tracker: HunkTracker = field(default_factory=HunkTracker)
    _text: dict[str, str] = field(default_factory=dict)
    _expect: dict[str, str] = field(default_factory=dict)
    _session_of: dict[str, str] = field(default_factory=dict)
    """hunk id → session id."""
    undone: dict[str, list[Undone]] = field(default_factory=dict)
    """session id → hunks undone since the model's last call."""
    _deciding: dict[str, int] = field(default_factory=dict)
    """session id → review decisions under way (the editor has not answered yet)."""
    _settled: dict[str, asyncio.Event] = field(default_factory=dict)
    undoing: set[str] = field(default_factory=set)
    """Hunks an Undo from the review UI is putting back (not the user's own undo)."""
    display: Callable[[str], str] = lambda uri: uri
    """The path a note names for ``uri`` (workspace-relative; set by the server)."""
    on_notes: Callable[[str, list[Undone]], None] | None = None
    """``(session_id, notes)``: the session's notes waiting for its next model call, after
    every change (one queued, all delivered): the server keeps them in the session file."""
    warn: Callable[[str], None] = log.warning
    """Where a late note is reported (the server: its log and the client's)."""
    on_change: Callable[[str, str, str, str, str], None] | None = None
    """``(session_id, tool_call_id, uri, before, after)`` for every applied agent edit: the
    checkpoint record (docs/protocol.md#checkpoints-restore-revert-one-tool-call-95)."""

    # ----------------------------------------------------------------- changes in

    def expect(self, uri: str, text: str) -> None:
        """An agent edit giving ``text`` is on its way to the client."""
        self._expect[uri] = text

    def expect_cancelled(self, uri: str) -> None:
        self._expect.pop(uri, None)

    def agent_edit(
        self, uri: str, before: str, after: str, context: ToolCallContext | None
    ) -> None:
        self._expect.pop(uri, None)
        session = context.session_id if context is not None else None
        tool_call_id = context.tool_call_id if context is not None else None
        if session is None or tool_call_id is None:
            self.observe(uri, after, by_user=False)  # not the agent's (an undo, a restore)
            return
        known = self._text.get(uri)
        if known is not None and known != before:
            self.observe(uri, before)
        if self.on_change is not None:
            try:
                self.on_change(session, tool_call_id, uri, before, after)
            except Exception:  # never let bookkeeping fail the edit itself
                log.exception("could not record the checkpoint of %s (%s)", uri, tool_call_id)
        created = self.tracker.agent_edit(uri, before, after, tool_call_id)
        self._text[uri] = after
        for hunk in created:
            self._session_of[hunk.id] = session
        self._changed({session, *self._sessions_of(uri)})

    def observe(self, uri: str, text: str, *, by_user: bool = True) -> None:
        """The buffer's text now (after a didChange); call only for uris in ``watching``.

        A user's change (``by_user``) that returns a pending hunk's region to its old text —
        the editor's own undo, or retyping it — undoes that hunk: it stops pending and the
        model is told, as for an undo from the review UI. A partial revert is the user's
        edit: the hunk moves with it (and an undo of it is a conflict)."""
        expected = self._expect.get(uri)
        if expected is not None and text == expected:
            return  # the agent's own edit, recorded by ``agent_edit``
        old = self._text.get(uri)
        if old is None or old == text:
            return
        start = 0
        limit = min(len(old), len(text))
        while start < limit and old[start] == text[start]:
            start += 1
        end_old, end_new = len(old), len(text)
        while end_old > start and end_new > start and old[end_old - 1] == text[end_new - 1]:
            end_old -= 1
            end_new -= 1
        self.tracker.change(uri, start, end_old, text[start:end_new])
        self._text[uri] = text
        if by_user:
            self._reverted_by_user(uri, text)

    def _reverted_by_user(self, uri: str, text: str) -> None:
        back = [
            h
            for h in self.tracker.pending(uri)
            if h.id not in self.undoing and _back_to_old(h, text)
        ]
        for hunk in back:
            session = self._session_of.get(hunk.id)
            if session is None:
                continue
            first = text.count("\n", 0, hunk.start) + 1
            last = first + max(0, hunk.new_text.rstrip("\n").count("\n"))
            self.record_undo(
                session, Undone(self.display(uri), first, last, hunk.new_text, None, "editor")
            )
            self.keep(session, hunk.id)

    def watching(self, uri: str) -> bool:
        return uri in self._text

    def closed(self, uri: str) -> None:
        sessions = self._sessions_of(uri)
        for hunk in self.tracker.pending(uri):
            self._session_of.pop(hunk.id, None)
        self.tracker.forget(uri)
        self._text.pop(uri, None)
        self._expect.pop(uri, None)
        self._changed(sessions)

    # -------------------------------------------------------------------- queries

    def snapshot(self, session_id: str) -> dict[str, Any]:
        files: dict[str, list[dict[str, Any]]] = {}
        for hunk in self.tracker.pending():
            if self._session_of.get(hunk.id) != session_id:
                continue
            files.setdefault(hunk.uri, []).append(self._wire(hunk))
        return {"files": [{"uri": uri, "hunks": hunks} for uri, hunks in files.items()]}

    def hunk(self, session_id: str, hunk_id: str) -> Hunk | None:
        if self._session_of.get(hunk_id) != session_id:
            return None
        return self.tracker.get(hunk_id)

    def holds(self, session_id: str) -> bool:
        """Whether the session has hunks under review or undo notes not yet delivered."""
        if self.undone.get(session_id):
            return True
        return any(self._session_of.get(h.id) == session_id for h in self.tracker.pending())

    def text_of(self, uri: str) -> str | None:
        return self._text.get(uri)

    # ------------------------------------------------------------------ decisions

    def keep(self, session_id: str, hunk_id: str) -> bool:
        if self.hunk(session_id, hunk_id) is None:
            return False
        hunk = self.tracker.keep(hunk_id)
        self._session_of.pop(hunk_id, None)
        if hunk is not None and not self.tracker.pending(hunk.uri):
            self._text.pop(hunk.uri, None)
        self._changed({session_id})
        return True

    def reverted(self, uri: str, before: str, after: str, tool_calls: set[str]) -> None:
        """A restore or revert (docs/protocol.md#checkpoints-restore-revert-one-tool-call-95) turns
        ``before`` into ``after``: the pending hunks of ``tool_calls`` whose text it takes back are
        no longer pending (a hunk it left alone, a conflict, stays); every other hunk moves as with
        the user's typing."""
        if uri not in self._text:
            return
        if self._text[uri] != before:
            self.observe(uri, before)
        mine = [h for h in self.tracker.pending(uri) if h.tool_call_id in tool_calls]
        was_touched = {h.id: h.touched for h in mine}
        for r in reversed(split_hunks(before, after)):  # from the end: offsets stay valid
            self.tracker.change(uri, r.start, r.end, r.new_text)
        self._text[uri] = after
        sessions = self._sessions_of(uri)
        for h in mine:
            if h.touched and not was_touched[h.id]:
                self.tracker.keep(h.id)
                self._session_of.pop(h.id, None)
        if not self.tracker.pending(uri):
            self._text.pop(uri, None)
        self._changed(sessions)

    def forget_tool_calls(self, session_id: str, tool_call_ids: set[str]) -> None:
        """Those tool calls' changes were reverted (a restore): their hunks are no longer
        pending."""
        gone = [
            h
            for h in self.tracker.pending()
            if h.tool_call_id in tool_call_ids and self._session_of.get(h.id) == session_id
        ]
        for hunk in gone:
            self.tracker.keep(hunk.id)
            self._session_of.pop(hunk.id, None)
        if gone:
            self._changed({session_id})

    def undo_check(self, session_id: str, hunk_id: str) -> Hunk | UndoConflict:
        hunk = self.hunk(session_id, hunk_id)
        text = self._text.get(hunk.uri) if hunk is not None else None
        if hunk is None or text is None:
            return UndoConflict(hunk_id, "no pending hunk with this id in this session")
        result = self.tracker.undo_region(hunk_id, text)
        return result if isinstance(result, UndoConflict) else hunk

    def record_undo(self, session_id: str, undone: Undone) -> None:
        self.undone.setdefault(session_id, []).append(undone)
        self._notes_changed(session_id)

    def restore_notes(self, session_id: str, undone: list[Undone]) -> None:
        """Notes a session's file says are still owed (a restart): waiting again, once."""
        if undone and not self.undone.get(session_id):
            self.undone[session_id] = list(undone)

    def unchecked(
        self, uri: str, left: list[tuple[int, int, str]], context: ToolCallContext | None
    ) -> None:
        """Confirm mode: the user unchecked these changes (``(first_line, last_line, text)``)
        in the preview of the tool call's edit (``context``); the model is told like an
        undo."""
        session = context.session_id if context is not None else None
        if session is None:
            return
        for first, last, text in left:
            self.record_undo(
                session, Undone(self.display(uri), first, last, text, None, "unchecked")
            )

    def take_undone(self, session_id: str) -> list[Undone]:
        taken = self.undone.pop(session_id, [])
        if taken:
            self._notes_changed(session_id)
        return taken

    # ------------------------------------------------------------------ notes

    @contextlib.contextmanager
    def deciding(self, session_id: str) -> Iterator[None]:
        """Around a ``pi/reviewDecision`` from the moment it arrives: a model call of the
        session made meanwhile waits for it (``settled``), so a prompt sent right after the
        decision is never ahead of its note."""
        self._deciding[session_id] = self._deciding.get(session_id, 0) + 1
        self._settled.setdefault(session_id, asyncio.Event()).clear()
        try:
            yield
        finally:
            left = self._deciding[session_id] - 1
            if left:
                self._deciding[session_id] = left
            else:
                del self._deciding[session_id]
                self._settled.pop(session_id, asyncio.Event()).set()

    async def settled(self, session_id: str) -> bool:
        """Return once no review decision of the session is under way (bounded: False when
        one still is after ``SETTLE_TIMEOUT``, and ``warn`` has said so)."""
        event = self._settled.get(session_id)
        if event is None or session_id not in self._deciding:
            return True
        try:
            await asyncio.wait_for(event.wait(), SETTLE_TIMEOUT)
        except TimeoutError:
            self.warn(
                f"session {session_id}: the editor has not finished applying a review "
                f"decision after {SETTLE_TIMEOUT:g} s; the model is called without its note, "
                "which comes with the next call"
            )
            return False
        return True

    async def take_notes(self, session_id: str) -> list[CustomMessage]:
        """The note for the session's next model call (once): every hunk undone or left
        unchecked since its last call, decisions still being applied included."""
        await self.settled(session_id)
        undone = self.take_undone(session_id)
        return [review_note(undone)] if undone else []

    # ------------------------------------------------------------------- internals

    def _sessions_of(self, uri: str) -> set[str]:
        return {
            self._session_of[h.id] for h in self.tracker.pending(uri) if h.id in self._session_of
        }

    def _notes_changed(self, session_id: str) -> None:
        if self.on_notes is None:
            return
        try:
            self.on_notes(session_id, list(self.undone.get(session_id, ())))
        except Exception:  # the note itself is still delivered from memory
            log.exception("session %s: the review notes could not be saved", session_id)

    def _changed(self, sessions: set[str]) -> None:
        for session in sessions:
            event = {"type": "review_update", **self.snapshot(session)}
            try:
                self.publish(session, event)
            except Exception:  # a closed session: nothing to tell
                log.debug("review_update for %s not sent", session, exc_info=True)

    def _wire(self, hunk: Hunk) -> dict[str, Any]:
        text = self._text.get(hunk.uri, "")
        index = TextIndex(text, self.encoding())
        start = index.position(hunk.start)
        end = index.position(hunk.end)
        return {
            "id": hunk.id,
            "toolCallId": hunk.tool_call_id,
            "range": {
                "start": {"line": start[0], "character": start[1]},
                "end": {"line": end[0], "character": end[1]},
            },
            "oldText": hunk.old_text,
            "newText": hunk.new_text,
        }


def _back_to_old(hunk: Hunk, text: str) -> bool:
    """Whether the hunk's region holds its old text again. Its range comes from a character
    diff of the buffer's states, which cannot always tell on which side of a line break a
    change fell (Neovim sends an undo as two states, the second removing a blank line it
    first added): a line-aligned hunk is compared on whole lines too."""
    if text[hunk.start : hunk.end] == hunk.old_text:
        return True
    old = hunk.old_text
    at_line_start = hunk.start == 0 or text[hunk.start - 1 : hunk.start] == "\n"
    if not old.endswith("\n") or not at_line_start or hunk.end <= hunk.start:
        return False
    last = text.find("\n", hunk.end - 1)
    end = len(text) if last < 0 else last + 1
    return text[hunk.start : end] == old
