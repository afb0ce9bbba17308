"""``EditorWorkspace``: the tools' ``Workspace`` inside an editor.

Reads see open buffers before the disk; ``edit`` / ``write`` become ``workspace/applyEdit``
(the editor's undo stack, its unsaved state) instead of disk writes — except while no editor
is connected (``pi-lsp --tcp`` between connections), when they go to the disk. The text an edit was
computed from is compared with the current buffer (version, then text) right before it is
sent; when the user changed it meanwhile, the edit is rebased onto the current text with a
three-way line merge (docs/protocol.md#rebase-onto-your-newer-text-92) and only an overlap is
refused (``StaleDocumentError`` showing the model the current text of that region). ``write`` merges
against the text the agent last read, so it never discards what the user typed after that read.
After an applied edit the disk is brought in line — by the client (``pi/saveDocuments``) or by us,
never over unsaved user changes. Path rules, listing and the mutation lock are inherited from
``DiskWorkspace``.
"""

from __future__ import annotations

import difflib
import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote

from lsprotocol import types
from pygls.exceptions import JsonRpcException
from pygls.uris import from_fs_path

from ...ai.abort import AbortSignal
from ...review import MergeResult, merge3, split_hunks
from ...tools.disk_workspace import DiskWorkspace
from ...tools.workspace import (
    Document,
    EditRejectedError,
    FileEdits,
    StaleDocumentError,
    TextEdit,
    ToolCallContext,
    apply_text_edits,
)
from ..bridge import ClientBridge, RequestAborted
from ..protocol.models import SAVE_DOCUMENTS, SaveDocumentsParams
from ..settings import ClientFeatures, Settings
from .diagnostics import DiagnosticsStore, describe
from .documents import DocumentTracker, real_path
from .edits import (
    BOM,
    EditOptions,
    EditTarget,
    create_file_edit,
    first_changed_range,
    workspace_edit,
)
from .review_book import ReviewBook

log = logging.getLogger(__name__)

ABORTED = "Operation aborted"


@dataclass(slots=True)
class EditPolicy:
    settings: Settings
    features: ClientFeatures


class EditorWorkspace(DiskWorkspace):
    def __init__(
        self,
        roots: Sequence[Path | str],
        *,
        bridge: ClientBridge,
        tracker: DocumentTracker,
        policy: Callable[[], EditPolicy],
    ) -> None:
        super().__init__(roots)
        self.bridge = bridge
        self.tracker = tracker
        self._policy = policy
        self._last_read: dict[Path, str] = {}
        """The text the agent last saw of each file (read, or its own edit's result)."""
        self.review: ReviewBook | None = None
        self.diagnostics = DiagnosticsStore()
        """``pi/diagnostics`` reports (docs/protocol.md#diagnostics-after-an-edit-94); fed by the
        server."""
        self._diagnostic_notes: dict[Path, str] = {}
        """Where applied edits become review hunks
        (docs/protocol.md#review-hunks-keep-or-undo-each-change-91); set by the server."""
        self._on_disk: dict[Path, bool] = {}
        """Whether the agent's last change to each file reached the disk
        (docs/protocol.md#the-disk-tells-the-truth-93)."""

    # ------------------------------------------------------------------------ reads

    def seen_text(self, path: Path) -> str | None:
        return self._last_read.get(path)

    async def read_document(self, path: Path) -> Document:
        doc = await self._read_current(path)
        self._last_read[path] = doc.text
        return doc

    async def _read_current(self, path: Path) -> Document:
        uri = self.tracker.uri_for(path)
        if uri is not None:
            buf = await self.tracker.settled_buffer(uri)
            if buf is not None:
                return Document(path=path, text=buf.text, version=buf.version, from_buffer=True)
        return await super().read_document(path)

    async def open_buffers(self) -> dict[Path, str]:
        """Every open buffer's text (saved or not), by real path (``BufferSource``: a worktree
        child starts from what the user sees, docs/subagents.md#worktree-isolation)."""
        out: dict[Path, str] = {}
        for path in self.tracker.open_paths():
            uri = self.tracker.uri_for(path)
            buf = await self.tracker.settled_buffer(uri) if uri is not None else None
            if buf is not None:
                out[path] = buf.text
        return out

    async def exists(self, path: Path) -> bool:
        """An open buffer exists even before it is first saved."""
        return self.tracker.uri_for(path) is not None or await super().exists(path)

    # ----------------------------------------------------------------------- writes

    async def write_document(
        self, path: Path, text: str, *, label: str, context: ToolCallContext | None = None
    ) -> None:
        if not self.bridge.connected:  # no editor (between TCP connections): the disk
            await DiskWorkspace.write_document(self, path, text, label=label)
            return
        signal = context.signal if context is not None else None
        if await self.exists(path):
            doc = await self._read_current(path)
            seen = self._last_read.get(path)
            if seen is not None and seen != doc.text and doc.text.removeprefix(BOM) != text:
                # written from an older read: the user's later typing is merged, never lost
                merged = merge3(seen, text, doc.text)
                if merged.text is None:
                    raise StaleDocumentError(self._conflict_message(doc, merged))
                text = merged.text
            await self.apply_edits(
                doc, _minimal_edits(doc.text, text), label=label, context=context
            )
            return
        label = _label(label)
        if not self.bridge.create_files:
            await self.disk_write_text(path, text)
            await self._follow(from_fs_path(str(path)) or path.as_uri(), None)
            return
        uri = from_fs_path(str(path)) or path.as_uri()
        edit = create_file_edit(uri, text, self._options(label))
        await self._confirm(label, "", text, path, signal)
        await self._send(edit, label, signal)
        if self.review is not None:
            self.review.agent_edit(unquote(uri), "", text, context)
        await self._sync_disk(path, uri, text, user_dirty=False, signal=signal)
        await self._follow(uri, first_changed_range(edit))

    async def apply_edits(
        self,
        document: Document,
        edits: Sequence[TextEdit],
        *,
        label: str,
        context: ToolCallContext | None = None,
    ) -> None:
        if not self.bridge.connected:  # no editor (between TCP connections): the disk
            await DiskWorkspace.apply_edits(self, document, edits, label=label)
            return
        signal = context.signal if context is not None else None
        label = _label(label)
        path = document.path
        new_text = apply_text_edits(document.text, edits)
        target, user_dirty = await self._current(document)
        await self._confirm(label, document.text, new_text, path, signal)
        if self._policy().settings.edits == "confirm" and not self.bridge.change_annotations:
            target, user_dirty = await self._current(document)  # the user may have typed
        if target.text != document.text:  # the user typed since: rebase onto their text
            merged = merge3(document.text, new_text, target.text)
            if merged.text is None:
                raise StaleDocumentError(self._conflict_message(document, merged))
            new_text = merged.text
            edits = _minimal_edits(target.text, new_text)
        self._last_read[path] = new_text
        edit = workspace_edit(target, edits, self._options(label))
        open_buf = self.tracker.buffer(target.uri) if self.tracker.uri_for(path) else None
        base_version = open_buf.version if open_buf is not None else None
        if self.review is not None:
            self.review.expect(target.uri, new_text)
        try:
            await self._send(edit, label, signal)
        except BaseException:
            if self.review is not None:
                self.review.expect_cancelled(target.uri)
            raise
        applied = self._applied_text(target, base_version, new_text)
        if applied != new_text:  # the user unchecked some changes in the preview
            self._unchecked_note(path, target.uri, target.text, new_text, applied, context)
            new_text = applied
            self._last_read[path] = new_text
        if self.review is not None:
            self.review.agent_edit(target.uri, target.text, new_text, context)
        if self.tracker.uri_for(path) is not None:
            self.tracker.expect(target.uri, target.version, new_text)
        disk_text = new_text
        if document.from_buffer and not new_text.startswith(BOM):
            disk_text = await self._keep_bom(path, new_text)
        await self._sync_disk(path, target.uri, disk_text, user_dirty=user_dirty, signal=signal)
        await self._follow(target.uri, first_changed_range(edit))
        if open_buf is not None and self._policy().features.diagnostics:
            await self._collect_diagnostics(path, target, new_text, base_version)

    async def apply_workspace_edit(
        self, files: FileEdits, *, label: str, context: ToolCallContext | None = None
    ) -> None:
        """Several files' edits (a rename) as one ``workspace/applyEdit``
        (``multi_file_edit.py``): one undo step, the review's hunks, one confirmation."""
        if not self.bridge.connected:  # no editor (between TCP connections): the disk
            await DiskWorkspace.apply_workspace_edit(self, files, label=label, context=context)
            return
        from .multi_file_edit import apply_files

        await apply_files(self, files, label=label, context=context)

    async def disk_note(self, paths: Sequence[Path] | None = None) -> str | None:
        """docs/protocol.md#the-disk-tells-the-truth-93: say whether the agent's change is on disk
        (commands see it); with docs/protocol.md#diagnostics-after-an-edit-94, the new errors and
        warnings on the lines it changed."""
        diagnostics = [
            self._diagnostic_notes.pop(p) for p in paths or () if p in self._diagnostic_notes
        ]
        note = await self._disk_words(paths)
        if diagnostics:
            return "\n\n".join([note or "", *diagnostics]).lstrip("\n")
        return note

    async def _disk_words(self, paths: Sequence[Path] | None) -> str | None:
        pending = [p for p in (paths or list(self._on_disk)) if p in self._on_disk]
        buffer_only = [p for p in pending if not await self._still_on_disk(p)]
        if paths is None:
            if not buffer_only:
                return None
            names = ", ".join(self.display_path(p) for p in buffer_only)
            return (
                f"Not on disk yet: the agent's changes to {names} are only in the editor "
                "buffer (it has unsaved user changes), so this command did not see them."
            )
        if buffer_only:
            return (
                "Applied in the editor buffer only: it has unsaved user changes and the editor "
                "cannot save it, so the file on disk still has the old text and commands run "
                "now will not see this change."
            )
        return "Saved to disk." if pending else None

    async def _collect_diagnostics(
        self, path: Path, target: EditTarget, new_text: str, base_version: int | None
    ) -> None:
        """docs/protocol.md#diagnostics-after-an-edit-94: wait (bounded) for the edited version's
        diagnostics and keep the errors / warnings on the changed lines for the tool result."""
        found = await self.diagnostics.after_edit(target.uri, base_version)
        lines: set[int] = set()
        shift = 0
        for r in split_hunks(target.text, new_text):
            start = r.start + shift
            first = new_text.count("\n", 0, start)
            count = max(1, r.new_text.rstrip("\n").count("\n") + 1) if r.new_text else 1
            lines.update(range(first, first + count))
            shift += len(r.new_text) - (r.end - r.start)
        note = describe(found, lines)
        if note is not None:
            earlier = self._diagnostic_notes.get(path)
            self._diagnostic_notes[path] = f"{earlier}\n\n{note}" if earlier else note

    def _applied_text(self, target: EditTarget, base_version: int | None, sent: str) -> str:
        """Confirm mode with the editor's preview: the text the client really applied (the
        user may uncheck changes there). Known only once its didChange arrived (clients send it
        before answering applyEdit); otherwise what was sent."""
        if self._policy().settings.edits != "confirm" or not self.bridge.change_annotations:
            return sent
        buf = self.tracker.buffer(target.uri)
        if buf is None or buf.expected or base_version is None or buf.version is None:
            return sent
        return buf.text if buf.version > base_version else sent

    def _unchecked_note(
        self,
        path: Path,
        uri: str,
        before: str,
        sent: str,
        applied: str,
        context: ToolCallContext | None,
    ) -> None:
        """docs/protocol.md#review-hunks-keep-or-undo-each-change-91: what the user left out in the
        preview, for the model: in the tool result, and as the review note of its next call
        (the same note as an undo)."""
        done = {(r.start, r.end, r.new_text) for r in split_hunks(before, applied)}
        left: list[str] = []
        unchecked: list[tuple[int, int, str]] = []
        for r in split_hunks(before, sent):
            if (r.start, r.end, r.new_text) in done:
                continue
            line = before.count("\n", 0, r.start) + 1
            left.append(f"- line {line}: not applied\n```\n{r.new_text.rstrip()}\n```")
            unchecked.append((line, line + max(0, r.new_text.rstrip("\n").count("\n")), r.new_text))
        if self.review is not None and unchecked:
            self.review.unchecked(uri, unchecked, context)
        if left:
            self._diagnostic_notes[path] = (
                "The user unchecked part of this change in the editor's preview; these parts "
                "were not applied (do not make them again unless asked):\n" + "\n".join(left)
            )

    async def _still_on_disk(self, path: Path) -> bool:
        """False while the agent's change to ``path`` is in the buffer only; forgets the
        path once the disk has caught up (the user saved) or the buffer is gone."""
        if self._on_disk.get(path, True):
            return True
        uri = self.tracker.uri_for(path)
        buf = self.tracker.buffer(uri) if uri is not None else None
        disk = await self._disk_text(path)
        if buf is None or (disk is not None and disk.removeprefix(BOM) == buf.text):
            del self._on_disk[path]
            return True
        return False

    async def undo_hunk(self, uri: str, text: str, start: int, end: int, old: str) -> None:
        """Put ``old`` back at ``[start, end)`` of ``text`` (the live text of ``uri``):
        versioned, rebased over the user's typing elsewhere, disk kept in line."""
        path = self.tracker_path(uri)
        buf = self.tracker.buffer(uri) if self.tracker.uri_for(path) is not None else None
        version = buf.version if buf is not None else None
        document = Document(path, text, version, from_buffer=buf is not None)
        name = self.display_path(path)
        await self.apply_edits(document, [TextEdit(start, end, old)], label=f"pi: undo {name}")

    async def current(self, path: Path) -> Document | None:
        """The file as it is now (its open buffer, else the disk); ``None`` when missing."""
        if not await self.exists(path):
            return None
        return await self._read_current(path)

    async def replace_text(self, document: Document, new_text: str, *, label: str) -> None:
        """Turn ``document`` into ``new_text`` with one versioned edit (a restore,
        docs/protocol.md#checkpoints-restore-revert-one-tool-call-95): minimal edits, the disk
        kept in line."""
        await self.apply_edits(document, _minimal_edits(document.text, new_text), label=label)

    def tracker_path(self, uri: str) -> Path:
        path = real_path(uri)
        if path is None:
            raise StaleDocumentError(f"{uri} is not a file")
        return self.confine(path)

    # -------------------------------------------------------------------- internals

    async def _current(self, document: Document) -> tuple[EditTarget, bool]:
        """The edit target: the document as it is now (its text may differ from
        ``document``'s: the caller rebases); plus whether the open buffer holds unsaved user
        changes."""
        path = document.path
        shown = self.display_path(path)
        uri = self.tracker.uri_for(path)
        buf = self.tracker.buffer(uri) if uri is not None else None
        if buf is not None:
            disk = await self._disk_text(path)
            user_dirty = disk is None or disk.removeprefix(BOM) != buf.text.removeprefix(BOM)
            version = None if buf.expected else buf.version
            return EditTarget(buf.uri, buf.text, version), user_dirty
        disk = await self._disk_text(path)
        if disk is None:
            raise StaleDocumentError(
                f"{shown} was deleted after it was read; the edit was not applied."
            )
        return EditTarget(from_fs_path(str(path)) or path.as_uri(), disk, None), False

    def _conflict_message(self, document: Document, merged: MergeResult) -> str:
        shown = self.display_path(document.path)
        where = "in the editor" if document.from_buffer else "on disk"
        parts = [
            f"{shown} changed {where} after it was read, in the lines this change "
            "touches; nothing was applied. The current text there:"
        ]
        for c in merged.conflicts:
            lines = c.current_text.splitlines() or [""]
            numbered = "\n".join(f"{c.first_line + i}: {line}" for i, line in enumerate(lines))
            parts.append(numbered)
        parts.append("Read the file again and retry with the current text.")
        return "\n\n".join(parts)

    async def _disk_text(self, path: Path) -> str | None:
        try:
            return await self.disk_read_text(path)
        except OSError:
            return None

    async def _keep_bom(self, path: Path, text: str) -> str:
        disk = await self._disk_text(path)
        return BOM + text if disk is not None and disk.startswith(BOM) else text

    def _options(self, label: str) -> EditOptions:
        confirm = self._policy().settings.edits == "confirm"
        return EditOptions(
            encoding=self.bridge.encoding,
            document_changes=self.bridge.document_changes,
            create_supported=self.bridge.create_files,
            annotation_label=label if confirm and self.bridge.change_annotations else None,
        )

    async def _confirm(
        self, label: str, old: str, new: str, path: Path, signal: AbortSignal | None
    ) -> None:
        """Confirm mode without annotation support: ask Apply / Reject first."""
        if self._policy().settings.edits != "confirm" or self.bridge.change_annotations:
            return
        message = f"{label}\n\n{_short_diff(old, new, self.display_path(path))}\n\nApply?"
        answer = await self.bridge.ask(
            message, ["Apply", "Reject"], kind=types.MessageType.Info, signal=signal
        )
        if answer != "Apply":
            raise EditRejectedError(
                f"The user rejected the change to {self.display_path(path)}; nothing was written."
            )

    async def _send(
        self, edit: types.WorkspaceEdit, label: str, signal: AbortSignal | None
    ) -> None:
        try:
            applied, reason = await self.bridge.apply_edit(edit, label, signal)
        except RequestAborted:
            raise EditRejectedError(ABORTED) from None
        if not applied:
            raise EditRejectedError(
                f"The editor did not apply the edit ({reason or 'no reason given'}); "
                "nothing was written."
            )

    async def _sync_disk(
        self,
        path: Path,
        uri: str,
        text: str,
        *,
        user_dirty: bool,
        signal: AbortSignal | None = None,
    ) -> None:
        features = self._policy().features
        if features.save_documents:
            try:
                result = await self.bridge.request(
                    SAVE_DOCUMENTS, SaveDocumentsParams(uris=[uri]).to_wire(), signal
                )
            except (JsonRpcException, RequestAborted) as exc:
                log.warning("pi/saveDocuments failed for %s: %s", uri, exc)
                self._on_disk[path] = False
                return
            saved = result.get("saved") if isinstance(result, dict) else None
            if not isinstance(saved, list) or uri not in saved:
                log.info("the client did not save %s", uri)
                self._on_disk[path] = False
            else:
                self._on_disk[path] = True
            return
        if user_dirty:
            log.info("%s has unsaved changes in the editor; not writing it to disk", path)
            self._on_disk[path] = False
            return
        await self.disk_write_text(path, text)
        self._on_disk[path] = True

    async def _follow(self, uri: str, selection: types.Range | None) -> None:
        if self._policy().settings.follow_edits:
            self.bridge.show_document(uri, selection)  # not waited on


def _minimal_edits(before: str, after: str) -> list[TextEdit]:
    """``before`` → ``after`` as line-level edits (cursor, marks and folds elsewhere stay)."""
    return [TextEdit(r.start, r.end, r.new_text) for r in split_hunks(before, after)]


def _label(label: str) -> str:
    return label if label.startswith("pi") else f"pi: {label}"


def _short_diff(old: str, new: str, name: str, limit: int = 30) -> str:
    lines = list(
        difflib.unified_diff(
            old.splitlines(), new.splitlines(), f"a/{name}", f"b/{name}", n=1, lineterm=""
        )
    )[2:]
    if len(lines) > limit:
        lines = [*lines[:limit], f"… {len(lines) - limit} more lines"]
    return "\n".join(lines) or "(no visible change)"
