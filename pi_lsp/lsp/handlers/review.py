"""``pi/review`` and ``pi/reviewDecision``
(docs/protocol.md#review-hunks-keep-or-undo-each-change-91): the pending hunks of a session, and the
user's keep / undo per hunk. Undo goes through the editor (one versioned
``workspace/applyEdit`` per hunk); a hunk the user changed since is a conflict, left alone.
Undone hunks are told to the model with its next call (``ReviewBook.take_notes``); a model
call made while a decision is being applied waits for it."""

from __future__ import annotations

from collections.abc import Callable

from ...review import UndoConflict
from ...tools.workspace import WorkspaceError
from ..editor.editor_workspace import EditorWorkspace
from ..editor.review_book import ReviewBook
from ..editor.review_notes import Undone
from ..host.session_manager import UnknownTargetError
from ..protocol.contract import (
    Decision,
    DecisionParams,
    DecisionResult,
    HunkConflict,
    ReviewResult,
)
from ..protocol.models import RequiredSessionParams


class ReviewApi:
    def __init__(
        self,
        book: ReviewBook,
        workspace: EditorWorkspace,
        known: Callable[[str], bool],
    ) -> None:
        self.book = book
        self.workspace = workspace
        self._known = known

    def _check(self, session_id: str) -> None:
        if not self._known(session_id):
            raise UnknownTargetError(f"unknown session: {session_id}")

    async def review(self, p: RequiredSessionParams) -> ReviewResult:
        self._check(p.session_id)
        snapshot = self.book.snapshot(p.session_id)
        return ReviewResult.model_validate({"sessionId": p.session_id, **snapshot})

    async def decide(self, p: DecisionParams) -> DecisionResult:
        self._check(p.session_id)
        with self.book.deciding(p.session_id):
            return await self._decide(p)

    async def _decide(self, p: DecisionParams) -> DecisionResult:
        applied: list[str] = []
        conflicts: list[HunkConflict] = []
        for d in p.decisions:
            if d.decision == "keep":
                if self.book.keep(p.session_id, d.hunk_id):
                    applied.append(d.hunk_id)
                else:
                    conflicts.append(
                        HunkConflict(hunk_id=d.hunk_id, message="no pending hunk with this id")
                    )
                continue
            message = await self._undo(p.session_id, d)
            if message is None:
                applied.append(d.hunk_id)
            else:
                conflicts.append(HunkConflict(hunk_id=d.hunk_id, message=message))
        return DecisionResult(applied=applied, conflicts=conflicts)

    async def _undo(self, session_id: str, d: Decision) -> str | None:
        hunk = self.book.undo_check(session_id, d.hunk_id)
        if isinstance(hunk, UndoConflict):
            return hunk.message
        text = self.book.text_of(hunk.uri) or ""
        first = text.count("\n", 0, hunk.start) + 1
        last = first + max(0, hunk.new_text.rstrip("\n").count("\n"))
        self.book.undoing.add(hunk.id)
        try:
            path = self.workspace.tracker_path(hunk.uri)
            await self.workspace.undo_hunk(hunk.uri, text, hunk.start, hunk.end, hunk.old_text)
        except WorkspaceError as exc:
            return str(exc)
        finally:
            self.book.undoing.discard(hunk.id)
        self.book.record_undo(
            session_id,
            Undone(self.workspace.display_path(path), first, last, hunk.new_text, d.reason),
        )
        self.book.keep(session_id, d.hunk_id)
        return None
