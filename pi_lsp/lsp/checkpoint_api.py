"""``pi/checkpoints``, ``pi/restore``, ``pi/undoRestore``, ``pi/revertToolCall`` (PROTOCOL §9.5).

Code is restored by taking the agent's recorded changes back out of each file, newest first,
one ``workspace/applyEdit`` per tool call (one undo step in the editor), hunk by hunk: a hunk
the user changed since is a conflict, left as it is; everything the user typed elsewhere
stays. Pending review hunks (§9.1) a revert takes back are no longer pending. The
conversation is restored by forking the session just before the checkpoint's user message
(as ``pi/forkSession``); its text comes back for the input box. Every restore (and revert)
is logged with the text before and after each file it changed, so ``pi/undoRestore`` takes
it back out the same way. A restore while the session runs is refused (abort or wait first):
reverting under a running agent would race its next edit.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from pygls.exceptions import JsonRpcInvalidParams
from pygls.uris import from_fs_path

from ..review.checkpoints import RESTORES, ChangeRecord, CheckpointStore
from ..tools.workspace import CURRENT_TOOL_CALL, WorkspaceError
from .editor_workspace import EditorWorkspace
from .hosted import HostedSession
from .methods import CHECKPOINTS, RESTORE, REVERT_TOOL_CALL, UNDO_RESTORE
from .protocol import (
    CheckpointInfo,
    CheckpointsResult,
    FileConflict,
    RequiredSessionParams,
    RestoreParams,
    RestoreResult,
    RevertToolCallParams,
    UndoRestoreParams,
    UndoRestoreResult,
    parse_params,
)
from .review_book import CURRENT_SESSION, ReviewBook
from .session_checkpoints import Checkpoint, SessionCheckpoints
from .session_manager import SessionManager, UnknownSessionError

BASH_NOTE = (
    "bash ran after this checkpoint; what it changed on disk is not tracked and was not restored"
)
RUNNING = "The session is running; abort it (pi/abort) or wait for the run to end before restoring."


class _Outcome:
    def __init__(self) -> None:
        self.changes: list[tuple[str, str, str]] = []
        """(path, text before, text after) per file change made, in order."""
        self.uris: list[str] = []
        self.conflicts: list[FileConflict] = []

    def changed(self, uri: str, path: str, before: str, after: str) -> None:
        self.changes.append((path, before, after))
        if uri not in self.uris:
            self.uris.append(uri)


class CheckpointApi:
    def __init__(
        self,
        manager: Callable[[], SessionManager],
        workspace: EditorWorkspace,
        review: ReviewBook | None,
        failed: Callable[[str], Exception],
    ) -> None:
        self._manager = manager
        self.workspace = workspace
        self.review = review
        self._failed = failed

    # ------------------------------------------------------------------ recording

    def record_change(self, path: Path, before: str, after: str) -> None:
        """``EditorWorkspace.on_change``: keep the change when a tool call made it."""
        session = CURRENT_SESSION.get()
        call = CURRENT_TOOL_CALL.get()
        if session is None or call is None:
            return  # the user's (a review undo, a restore): not the agent's
        hosted = self._manager().sessions.get(session)
        if hosted is not None and hosted.checkpoints is not None:
            hosted.checkpoints.record_edit(call, path, before, after)

    # ------------------------------------------------------------------- requests

    async def checkpoints(self, raw: Any) -> dict[str, Any]:
        p = parse_params(CHECKPOINTS, RequiredSessionParams, raw)
        hosted, log = self._session(p.session_id)
        files = log.files()
        infos = [
            CheckpointInfo(
                entry_id=c.entry_id,
                text=c.text,
                timestamp=c.timestamp,
                files=[_uri(Path(f)) for f in files.get(c.entry_id, [])],
            )
            for c in log.checkpoints()
        ]
        return CheckpointsResult(session_id=hosted.id, checkpoints=infos).to_wire()

    async def restore(self, raw: Any) -> dict[str, Any]:
        p = parse_params(RESTORE, RestoreParams, raw)
        hosted, log = self._session(p.session_id)
        points = log.since(p.entry_id)
        if points is None:
            raise JsonRpcInvalidParams(
                f"Unknown checkpoint {p.entry_id} in session {hosted.id}: not a user message "
                "of its current branch (see pi/checkpoints)"
            )
        if hosted.running:
            raise self._failed(RUNNING)
        outcome = _Outcome()
        bash_ran = False
        if p.mode != "conversation":
            records = log.records_since(p.entry_id)
            await self._take_back(log.store, records[::-1], outcome, drop_hunks=True)
            bash_ran = log.bash_since(p.entry_id)
        target, text = hosted, None
        if p.mode != "code":
            target = self._fork(hosted, log, points[0])
            text = points[0].text
        restore_id = self._log_restore(target, p.entry_id, outcome)
        return RestoreResult(
            restore_id=restore_id,
            reverted=outcome.uris,
            conflicts=outcome.conflicts,
            session_id=target.id,
            text=text,
            bash_ran=bash_ran,
            note=BASH_NOTE if bash_ran else None,
            forked_from=hosted.id if target is not hosted else None,
        ).to_wire()

    async def revert_tool_call(self, raw: Any) -> dict[str, Any]:
        p = parse_params(REVERT_TOOL_CALL, RevertToolCallParams, raw)
        hosted, log = self._session(p.session_id)
        records = [r for r in log.store.records() if r.tool_call_id == p.tool_call_id]
        if not records:
            raise JsonRpcInvalidParams(
                f"Unknown toolCallId {p.tool_call_id} in session {hosted.id}: no edit or "
                "write of that tool call is recorded"
            )
        outcome = _Outcome()
        await self._take_back(log.store, records[::-1], outcome, drop_hunks=True)
        restore_id = self._log_restore(hosted, records[0].checkpoint, outcome)
        return RestoreResult(
            restore_id=restore_id,
            reverted=outcome.uris,
            conflicts=outcome.conflicts,
            session_id=hosted.id,
        ).to_wire()

    async def undo_restore(self, raw: Any) -> dict[str, Any]:
        p = parse_params(UNDO_RESTORE, UndoRestoreParams, raw)
        hosted, log = self._session(p.session_id)
        logged = [r for r in log.store.records(RESTORES) if r.tool_call_id == p.restore_id]
        if not logged:
            raise JsonRpcInvalidParams(f"Unknown restoreId {p.restore_id} in session {hosted.id}")
        outcome = _Outcome()
        changes = [r for r in logged if r.path]  # the first is the restore's header
        await self._take_back(log.store, changes[::-1], outcome, drop_hunks=False)
        return UndoRestoreResult(
            restore_id=p.restore_id,
            reapplied=outcome.uris,
            conflicts=outcome.conflicts,
            session_id=hosted.id,
        ).to_wire()

    # ------------------------------------------------------------------ internals

    def _session(self, session_id: str) -> tuple[HostedSession, SessionCheckpoints]:
        try:
            hosted = self._manager().get(session_id)
        except UnknownSessionError as exc:
            raise JsonRpcInvalidParams(str(exc)) from None
        if hosted.checkpoints is None:
            raise self._failed(f"Session {session_id} keeps no checkpoints (it has no file).")
        return hosted, hosted.checkpoints

    async def _take_back(
        self,
        store: CheckpointStore,
        records: Sequence[ChangeRecord],
        outcome: _Outcome,
        *,
        drop_hunks: bool,
    ) -> None:
        """Take each record back out of its file (in the order given), one applyEdit each."""
        ws = self.workspace
        for rec in records:
            path = Path(rec.path)
            uri = ws.tracker.uri_for(path) or _uri(path)
            name = ws.display_path(path)
            async with ws.mutation_lock(path):
                try:
                    doc = await ws.current_document(path)
                except OSError:
                    outcome.conflicts.append(
                        FileConflict(uri=uri, message=f"{name} no longer exists; left as it is")
                    )
                    continue
                result = store.revert(rec, doc.text)
                for c in result.conflicts:
                    outcome.conflicts.append(
                        FileConflict(
                            uri=uri,
                            message=f"{name} line {c.first_line} was changed since the agent's "
                            "edit; left as it is",
                        )
                    )
                new = doc.text if result.text is None else result.text
                if new == doc.text:
                    continue
                if drop_hunks and self.review is not None:
                    self.review.reverted(uri, doc.text, new, {rec.tool_call_id})
                try:
                    await ws.replace_text(doc, new, label=f"pi: revert {name}")
                except WorkspaceError as exc:
                    outcome.conflicts.append(FileConflict(uri=uri, message=str(exc)))
                    continue
                outcome.changed(uri, rec.path, doc.text, new)

    def _fork(
        self, hosted: HostedSession, log: SessionCheckpoints, point: Checkpoint
    ) -> HostedSession:
        """A new session holding the conversation up to (not including) ``point``."""
        manager = self._manager()
        if point.parent_id is None:
            new = manager.create()
        else:
            new = manager.fork(hosted.id, point.parent_id)
        earlier: set[str] = set()
        for c in log.checkpoints():
            if c.entry_id == point.entry_id:
                break
            earlier.add(c.entry_id)
        if new.checkpoints is not None and earlier:
            log.store.copy_to(new.checkpoints.store, earlier)
        return new

    def _log_restore(self, hosted: HostedSession, checkpoint: str, outcome: _Outcome) -> str:
        restore_id = f"restore-{uuid.uuid4().hex[:12]}"
        if hosted.checkpoints is None:
            return restore_id
        store = hosted.checkpoints.store
        now = int(time.time() * 1000)
        try:
            store.record(restore_id, checkpoint, "", "", "", now, kind=RESTORES)  # header
            for path, before, after in outcome.changes:
                store.record(restore_id, checkpoint, path, before, after, now, kind=RESTORES)
        except OSError as exc:
            raise self._failed(
                f"Restored, but could not save the restore (pi/undoRestore will not know it): {exc}"
            ) from None
        return restore_id


def _uri(path: Path) -> str:
    return from_fs_path(str(path)) or path.as_uri()
