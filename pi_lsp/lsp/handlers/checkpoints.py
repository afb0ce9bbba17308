"""Checkpoints, restore, revert one tool call
(docs/protocol.md#checkpoints-restore-revert-one-tool-call-95).

Every user message of a session's current branch is a checkpoint. What the agent's ``edit`` /
``write`` calls changed is recorded per tool call beside the session file
(``HostedSession.changes``). ``pi/restore`` takes the agent's changes made after a
checkpoint back out, newest first, each by a three-way merge against the file as it is now:
whatever the user changed since stays, and a region both touched is a conflict left as it is.
``conversation`` forks the session before that message and hands back its text. What a restore
changed is kept (``RestoreLog``, in the sessions directory) so ``pi/undoRestore`` can put it
back, also after a restart and from the forked session.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ...review import (
    ChangeRecord,
    CheckpointStore,
    MergeResult,
    RestoredFile,
    RestoreLog,
)
from ...review.merge import merge3_partial
from ...tools.workspace import WorkspaceError
from ..editor.editor_workspace import EditorWorkspace
from ..editor.review_book import ReviewBook
from ..editor.review_notes import UNDO_NOTE_HEAD
from ..host.hosted import HostedSession
from ..protocol.contract import (
    Checkpoint,
    CheckpointsResult,
    FileConflict,
    RestoreParams,
    RestoreResult,
    RevertToolCallParams,
    RevertToolCallResult,
    UndoRestoreParams,
    UndoRestoreResult,
)
from ..protocol.models import RequiredSessionParams
from .errors import InvalidRequest, RequestFailed

BASH_NOTE = (
    "bash ran after this checkpoint: what its commands changed on disk is not tracked and was "
    "not restored"
)


class CheckpointApi:
    def __init__(
        self,
        workspace: EditorWorkspace,
        session: Callable[[str], HostedSession],
        fork: Callable[[str, str | None], HostedSession],
        log: RestoreLog,
        book: ReviewBook | None,
    ) -> None:
        self.workspace = workspace
        self._session = session
        self._fork = fork
        self.log = log
        self.book = book

    # ------------------------------------------------------------------------ requests

    async def checkpoints(self, p: RequiredSessionParams) -> CheckpointsResult:
        hosted = self._session(p.session_id)
        entries = hosted.changes.entries()
        records = _records(hosted.changes.store)
        out: list[Checkpoint] = []
        later: list[str] = []  # files changed after the checkpoint, newest checkpoint first
        for entry_id, message in reversed(entries):
            for r in records:
                if r.checkpoint == entry_id and r.path not in later:
                    later.append(r.path)
            out.append(
                Checkpoint(
                    entry_id=entry_id,
                    text=_text(message.content),
                    timestamp=message.timestamp,
                    files=list(later),
                )
            )
        out.reverse()
        return CheckpointsResult(checkpoints=out)

    async def restore(self, p: RestoreParams) -> RestoreResult:
        hosted = self._not_running(p.session_id)
        entries = hosted.changes.entries()
        ids = [entry_id for entry_id, _ in entries]
        if p.entry_id not in ids:
            raise InvalidRequest(
                f"entry {p.entry_id} is not a checkpoint (a user message) of session {p.session_id}"
            )
        at = ids.index(p.entry_id)
        after = set(ids[at:])
        result = RestoreResult(session_id=p.session_id)
        store = hosted.changes.store
        if p.mode in ("code", "both"):
            records = [r for r in _records(store) if r.checkpoint in after]
            reverted = await self._revert(hosted, store, records)
            result.restore_id = reverted.restore_id
            result.reverted = reverted.reverted
            result.conflicts = reverted.conflicts
            if store is not None and store.bash_checkpoints() & after:
                result.bash_ran = True
                result.note = BASH_NOTE
        if p.mode in ("conversation", "both"):
            entry = hosted.session.tree.get_entry(p.entry_id)
            parent = entry.parent_id if entry is not None else None
            forked = self._fork(p.session_id, parent)
            copied, target = set(ids[:at]), forked.changes.store
            if store is not None and target is not None and copied:
                store.copy_to(target, copied)  # the fork's checkpoints keep their files
            result.session_id = forked.id
            result.text = _text(entries[at][1].content)
        return result

    async def revert_tool_call(self, p: RevertToolCallParams) -> RevertToolCallResult:
        hosted = self._not_running(p.session_id)
        store = hosted.changes.store
        records = [r for r in _records(store) if r.tool_call_id == p.tool_call_id]
        if not records:
            raise InvalidRequest(
                f"tool call {p.tool_call_id} changed no file in session {p.session_id}"
            )
        reverted = await self._revert(hosted, store, records)
        return RevertToolCallResult(
            session_id=p.session_id,
            restore_id=reverted.restore_id,
            reverted=reverted.reverted,
            conflicts=reverted.conflicts,
        )

    async def undo_restore(self, p: UndoRestoreParams) -> UndoRestoreResult:
        self._not_running(p.session_id)
        files = self.log.load(p.restore_id)
        if files is None:
            raise InvalidRequest(f"no restore {p.restore_id} to undo")
        reapplied: list[str] = []
        conflicts: list[FileConflict] = []
        for f in files:
            changed, messages = await self._apply(f.uri, partial(_reapply, f))
            conflicts.extend(FileConflict(uri=f.uri, message=m) for m in messages)
            if changed:
                reapplied.append(f.uri)
        self.log.forget(p.restore_id)
        return UndoRestoreResult(reapplied=reapplied, conflicts=conflicts)

    # ----------------------------------------------------------------------- internals

    def _not_running(self, session_id: str) -> HostedSession:
        hosted = self._session(session_id)
        if hosted.running:
            raise RequestFailed(
                "The session is running; abort it (pi/abort) or wait before restoring."
            )
        return hosted

    async def _revert(
        self, hosted: HostedSession, store: CheckpointStore | None, records: list[ChangeRecord]
    ) -> RevertToolCallResult:
        """Take ``records`` back out, newest first, hunk by hunk (one applyEdit per tool
        call and file); log what changed for ``pi/undoRestore``."""
        before: dict[str, str] = {}
        after: dict[str, str] = {}
        conflicts: list[FileConflict] = []
        blocked: set[str] = set()  # tool calls with a change left in place
        for record in reversed(records):
            if store is None:
                blocked.add(record.tool_call_id)
                continue
            _, messages = await self._apply(
                record.path,
                partial(store.revert, record),
                before,
                after,
                reverting={record.tool_call_id},
            )
            if messages:
                blocked.add(record.tool_call_id)
            for message in messages:
                item = FileConflict(uri=record.path, message=message)
                if item not in conflicts:
                    conflicts.append(item)
        reverted = [uri for uri in after if after[uri] != before[uri]]
        restore_id = uuid.uuid4().hex[:12]
        if reverted:
            self.log.save(
                restore_id, [RestoredFile(uri, before[uri], after[uri]) for uri in reverted]
            )
        if self.book is not None:
            done = {r.tool_call_id for r in records} - blocked
            self.book.forget_tool_calls(hosted.id, done)
        return RevertToolCallResult(
            session_id=hosted.id,
            restore_id=restore_id if reverted else None,
            reverted=reverted,
            conflicts=conflicts,
        )

    async def _apply(
        self,
        uri: str,
        merge: Callable[[str], MergeResult],
        before: dict[str, str] | None = None,
        after: dict[str, str] | None = None,
        *,
        reverting: set[str] | None = None,
    ) -> tuple[bool, list[str]]:
        """Apply ``merge(current text)`` to ``uri`` (the parts that do not clash with the
        user's changes since): whether the text changed, and a message per part left as it
        is. ``reverting``: the tool calls taken back (their review hunks stop pending)."""
        try:
            path = self.workspace.tracker_path(uri)
            document = await self.workspace.current(path)
        except WorkspaceError as exc:
            return False, [str(exc)]
        shown = _shown(self.workspace, path)
        if document is None:
            return False, [f"{shown} no longer exists"]
        merged = merge(document.text)
        conflicts = [
            f"{shown}: you changed the same lines since (line {c.first_line}); left as it is"
            for c in merged.conflicts
        ]
        new = document.text if merged.text is None else merged.text
        if before is not None:
            before.setdefault(uri, document.text)
        if new == document.text:
            if after is not None:
                after[uri] = document.text
            return False, conflicts
        if reverting and self.book is not None:
            self.book.reverted(uri, document.text, new, reverting)
        try:
            await self.workspace.replace_text(document, new, label=f"pi: restore {shown}")
        except WorkspaceError as exc:
            return False, [*conflicts, str(exc)]
        if after is not None:
            after[uri] = new
        return True, conflicts


def _reapply(restored: RestoredFile, now: str) -> MergeResult:
    return merge3_partial(restored.after, restored.before, now)


def _records(store: CheckpointStore | None) -> list[ChangeRecord]:
    return store.records() if store is not None else []


def _text(content: Any) -> str:
    """What the user typed: the message's text without a review note joined to it
    (docs/protocol.md#review-hunks-keep-or-undo-each-change-91)."""
    if isinstance(content, str):
        return content
    return "".join(
        block.text
        for block in content
        if block.type == "text" and not block.text.startswith(UNDO_NOTE_HEAD)
    )


def _shown(workspace: EditorWorkspace, path: Path) -> str:
    return workspace.display_path(path)
